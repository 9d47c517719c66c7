"""Ingest as jobs in PostgreSQL: the queue (procrastinate), its tasks, the leases that refuse
a late commit, and the per-job recovery of half-written units."""
