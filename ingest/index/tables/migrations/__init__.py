"""The catalog's migrations as an Alembic chain, run from code by `ingest.index.tables.schema`.

Revision `catalog_000N` applies step N of `steps.MIGRATIONS` (the SQL both
databases run, spelled through `CatalogDb`) on the catalog's open transaction,
which `config.attributes["catalog"]` hands to `env.py` and to each revision. The
chain is recorded in its own table, `catalog_alembic_version`, so that a catalog
and the service's tables (`chat/service/storage/migrations`, `alembic_version`)
can share one PostgreSQL database.
"""

from __future__ import annotations

from pathlib import Path

from alembic.config import Config

from ingest.index.tables import steps

HERE = Path(__file__).resolve().parent
VERSION_TABLE = "catalog_alembic_version"
# Where the revisions are; a test that adds a migration adds its directory.
VERSION_DIRS: tuple[Path, ...] = (HERE / "versions",)


def revision_id(version: int) -> str:
    """The revision that brings a catalog to schema `version`."""
    return f"catalog_{version:04d}"


def alembic_config(attributes: dict[str, object]) -> Config:
    """Alembic's configuration in code, `attributes` (the connection and the catalog)
    handed to `env.py`."""
    config = Config()
    # Config options go through configparser, which treats "%" as interpolation.
    config.set_main_option("script_location", str(HERE).replace("%", "%%"))
    config.set_main_option("path_separator", "os")
    locations = ":".join(str(path) for path in VERSION_DIRS)
    config.set_main_option("version_locations", locations.replace("%", "%%"))
    config.attributes.update(attributes)
    return config


def apply_step(version: int) -> None:
    """Run step `version` of the catalog's migrations: a revision's `upgrade`."""
    from alembic import op

    migration = steps.MIGRATIONS[version - 1]
    if migration.version != version:
        raise RuntimeError(f"step {version} of the catalog's migrations is not numbered so")
    config = op.get_context().config
    if config is None:
        raise RuntimeError(
            "the catalog's migrations run from ingest.index.tables.schema.upgrade only"
        )
    migration.apply(config.attributes["catalog"])


def refuse_downgrade() -> None:
    raise NotImplementedError(
        "a catalog is never migrated down: open it with this paperchat or a newer one"
    )
