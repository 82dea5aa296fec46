"""The mock's persistent store, SQLite from the standard library: workflows, versions, keys
(``database``), runs, their block rows and registered stubs (``runs``), and the list search
(``search``). The only part of the server that speaks SQL."""
