"""``python -m wflint.server``: the ``wflint serve`` command on its own."""

from .cli import serve

if __name__ == "__main__":
    serve(prog_name="python -m wflint.server")
