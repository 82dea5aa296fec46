// Reads Mermaid diagrams, one JSON object {"text": "..."} per line on standard input, and
// answers one JSON line each: {"ok": true, "type", "vertices": {id: text}, "edges":
// [{start, end, text}], "subgraphs": [{id, title, nodes}]} as Mermaid's own flowchart parser
// reads them (texts decoded as Mermaid decodes them when it draws), or {"ok": false, "error"}.
// Mermaid runs in Node under jsdom: its parser needs a DOM only to exist, not to draw.
import { createInterface } from "node:readline";
import { JSDOM } from "jsdom";

const dom = new JSDOM("<!doctype html><html><body></body></html>", { pretendToBeVisual: true });
globalThis.window = dom.window;
globalThis.document = dom.window.document;
for (const name of ["DOMParser", "Element", "HTMLElement", "Node", "navigator"]) {
  try { globalThis[name] ??= dom.window[name]; } catch { /* read-only in this Node */ }
}
const { default: mermaid } = await import("mermaid");
mermaid.initialize({ startOnLoad: false, securityLevel: "strict" });

const area = document.createElement("textarea");
function decode(text) {
  // the placeholders Mermaid's parser leaves for entity codes, then HTML entities
  const html = String(text ?? "").replace(/ﬂ°°/g, "&#").replace(/ﬂ°/g, "&").replace(/¶ß/g, ";");
  area.innerHTML = html;
  return area.value;
}

async function check(text) {
  try {
    const diagram = await mermaid.mermaidAPI.getDiagramFromText(text);
    const db = diagram.db;
    const vertices = {};
    const raw = db.getVertices();
    for (const [id, v] of raw instanceof Map ? raw : Object.entries(raw)) vertices[id] = decode(v.text);
    const edges = db.getEdges().map((e) => ({ start: e.start, end: e.end, text: decode(e.text) }));
    const subgraphs = db.getSubGraphs().map((s) => ({ id: s.id, title: decode(s.title), nodes: s.nodes }));
    return { ok: true, type: diagram.type, vertices, edges, subgraphs };
  } catch (err) {
    return { ok: false, error: String(err?.message ?? err) };
  }
}

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  if (!line.trim()) continue;
  const { text } = JSON.parse(line);
  process.stdout.write(JSON.stringify(await check(text)) + "\n");
}
