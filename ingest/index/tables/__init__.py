"""The catalog's database: its engine, schema, migrations and the SQL of its tables
(papers, chunks, the change log, where each field came from)."""
