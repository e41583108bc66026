"""Per-token lock rows, so a quota check and the insert it guards are one serialised step.

Revision ID: 0002
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create the tokens table."""
    op.create_table(
        "tokens",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("updated_at", sa.Float, nullable=False, server_default="0"),
    )


def downgrade() -> None:
    """Drop the tokens table."""
    op.drop_table("tokens")
