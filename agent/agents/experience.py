"""Prior-task experience: task-independent lessons distilled by an LLM from execution logs of training
tasks, stored as a Markdown file and reused in later prompts (AgentConfig.experience_file).

A lessons file starts with a `---` header (source runs, model, template version, episode count) and
holds the lessons as a Markdown list. Logs given to the model are compressed per episode: program
outcomes, failed calls and the soft score; never targets or per-brick ground truth.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from agent.llm import UsageAccount
from agent.llm.client import LLMClient
from agent.llm.prompts import Prompt, load_template
from evaluator.run_dir import read_run_dir
from jarvis_sim.records import EpisodeRecord

MAX_CODE_LINES = 40
MAX_LOG_CHARS = 60_000


class ExperienceError(ValueError):
    """A lessons file or a source run that cannot be used; the message names it."""


def load_experience(path: Path) -> str:
    """The lessons of a file (its header dropped); a missing or empty file raises ExperienceError."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ExperienceError(f"cannot read experience file {path}: {exc.strerror or exc}") from None
    lines = text.splitlines()
    if lines and lines[0].strip() == "---":
        try:
            end = next(i for i in range(1, len(lines)) if lines[i].strip() == "---")
        except StopIteration:
            raise ExperienceError(f"{path}: the header opened on line 1 is never closed with '---'") from None
        lines = lines[end + 1 :]
    body = "\n".join(lines).strip()
    if not body:
        raise ExperienceError(f"experience file {path} holds no lessons")
    return body


def episode_log(record: EpisodeRecord) -> str:
    """One episode's execution log, compressed for the distillation prompt."""
    score = record.scores.get("soft_score")
    head = f"### Episode {record.episode_id} ({record.difficulty or 'unknown'} task, mode {record.agent.get('mode', '?')})"
    out = [head, f"Status: {record.status}" + (f" ({record.error})" if record.error else "")
           + (f"; soft score {score:.1f}" if score is not None else "")
           + (f"; completion {record.scores['completion']:.0f}" if "completion" in record.scores else "")]
    for rnd in record.rounds:
        out.append(f"Round {rnd.index + 1} ({rnd.kind}): outcome {rnd.outcome}"
                   + (f" at line {rnd.outcome_line}" if rnd.outcome_line else ""))
        if rnd.code:
            lines = rnd.code.strip().splitlines()
            code = "\n".join(lines[:MAX_CODE_LINES]) + (f"\n# ... {len(lines) - MAX_CODE_LINES} more lines" if len(lines) > MAX_CODE_LINES else "")
            out.append(f"```python\n{code}\n```")
        failed = [c for c in rnd.skill_calls if not c.ok]
        ok = len(rnd.skill_calls) - len(failed)
        if rnd.skill_calls:
            out.append(f"{ok} skill calls succeeded, {len(failed)} failed.")
        for c in failed[:6]:
            args = ", ".join(f"{k}={v!r}" for k, v in c.args.items())
            out.append(f"- {c.name}({args}) -> {c.error_kind}: {(c.error or '').splitlines()[0] if c.error else ''}")
        if rnd.outcome == "no_code":
            out.append(f"No program: {rnd.feedback}")
    return "\n".join(out)


def collect_logs(run_dirs: list[Path], max_episodes: int) -> list[str]:
    """Logs of the assembly episodes of some run directories (failed ones first: they teach most)."""
    records: list[EpisodeRecord] = []
    for run_dir in run_dirs:
        records.extend(r for r in read_run_dir(run_dir).records if r.family == "lego" and r.rounds)
    if not records:
        raise ExperienceError(f"no assembly episodes with rounds in {', '.join(str(d) for d in run_dirs)}")
    records.sort(key=lambda r: (r.scores.get("soft_score", 0.0), r.episode_id))
    return [episode_log(r) for r in records[:max_episodes]]


def distill_prompt(logs: list[str], library: str, max_lessons: int) -> Prompt:
    """The distillation prompt over some episode logs (cut to a size models accept)."""
    from skills.libraries import api_text

    template = load_template("experience_distill")
    kept: list[str] = []
    size = 0
    for log in logs:
        if size + len(log) > MAX_LOG_CHARS and kept:
            break
        kept.append(log)
        size += len(log)
    user = template.render(n_episodes=len(kept), max_lessons=max_lessons, api=api_text(library), logs="\n\n".join(kept))
    return Prompt(system="", user=user, versions=[template.tag])


def distill_lessons(run_dirs: list[Path], client: LLMClient, *, library: str = "task", max_lessons: int = 12,
                    max_episodes: int = 40, max_tokens: int = 2048) -> tuple[str, dict[str, object]]:
    """Ask the model for lessons from the runs' logs; returns the lessons and the header metadata."""
    logs = collect_logs(run_dirs, max_episodes)
    prompt = distill_prompt(logs, library, max_lessons)
    account = UsageAccount()
    response = client.chat(prompt.request(temperature=0.0, seed=0, max_tokens=max_tokens), account)
    lessons = response.text.strip()
    if not lessons:
        raise ExperienceError(f"the model {client.provider.spec} answered with no lessons")
    meta: dict[str, object] = {
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "sources": ", ".join(str(d) for d in run_dirs),
        "episodes": prompt.user.count("### Episode "),
        "model": str(client.provider.spec),
        "template": prompt.version,
        "input_tokens": account.input_tokens,
        "output_tokens": account.output_tokens,
    }
    return lessons, meta


def write_lessons(path: Path, lessons: str, meta: dict[str, object]) -> None:
    """Write a lessons file: the header, then the lessons (written whole, then renamed)."""
    header = "\n".join(f"{k}: {v}" for k, v in meta.items())
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(f"---\n{header}\n---\n{lessons.strip()}\n", encoding="utf-8")
    tmp.replace(path)
