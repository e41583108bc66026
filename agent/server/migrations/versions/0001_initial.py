"""Initial schema: episodes (queue + index of records) and runs.

Revision ID: 0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create the tables."""
    op.create_table(
        "episodes",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("run_id", sa.String(64), nullable=True),
        sa.Column("task_id", sa.String(256), nullable=False),
        sa.Column("family", sa.String(32), nullable=False),
        sa.Column("agent", sa.Text, nullable=False),
        sa.Column("budget", sa.Text, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("interactive", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("token_id", sa.String(64), nullable=False, server_default="anonymous"),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("started_at", sa.Float, nullable=True),
        sa.Column("finished_at", sa.Float, nullable=True),
        sa.Column("lease_owner", sa.String(64), nullable=True),
        sa.Column("lease_expires_at", sa.Float, nullable=True),
        sa.Column("attempts", sa.Integer, nullable=False, server_default="0"),
        sa.Column("error", sa.Text, nullable=True),
        sa.Column("scores", sa.Text, nullable=True),
        sa.Column("record_path", sa.Text, nullable=True),
        sa.Column("progress", sa.Text, nullable=True),
    )
    op.create_index("ix_episodes_run_id", "episodes", ["run_id"])
    op.create_index("ix_episodes_status", "episodes", ["status"])
    op.create_index("ix_episodes_token_id", "episodes", ["token_id"])
    op.create_index("ix_episodes_status_created", "episodes", ["status", "created_at"])
    op.create_table(
        "runs",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("config", sa.Text, nullable=False),
        sa.Column("token_id", sa.String(64), nullable=False, server_default="anonymous"),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("total", sa.Integer, nullable=False),
        sa.Column("out_dir", sa.Text, nullable=False),
        sa.Column("reported", sa.Boolean, nullable=False, server_default=sa.false()),
    )


def downgrade() -> None:
    """Drop the tables."""
    op.drop_table("runs")
    op.drop_index("ix_episodes_status_created", "episodes")
    op.drop_index("ix_episodes_token_id", "episodes")
    op.drop_index("ix_episodes_status", "episodes")
    op.drop_index("ix_episodes_run_id", "episodes")
    op.drop_table("episodes")
