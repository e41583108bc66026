"""Fair claims: when each token was last served, and an index of episodes by status and token.

Revision ID: 0003
Revises: 0002
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add tokens.last_claimed_at; index episodes by (status, token_id, created_at)."""
    with op.batch_alter_table("tokens") as batch:
        batch.add_column(sa.Column("last_claimed_at", sa.Float, nullable=False, server_default="0"))
    op.create_index("ix_episodes_status_token_created", "episodes", ["status", "token_id", "created_at"])


def downgrade() -> None:
    """Drop the index and the column."""
    op.drop_index("ix_episodes_status_token_created", table_name="episodes")
    with op.batch_alter_table("tokens") as batch:
        batch.drop_column("last_claimed_at")
