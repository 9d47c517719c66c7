"""The service's own database: the engine, its tables, the conversations kept in it

and the Alembic migrations that create and change it.
"""
