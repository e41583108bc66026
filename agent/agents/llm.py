"""The `llm` agent (JARVIS-agentic with any provider) and the `replay` agent that answers from a recording.

Assembly tasks: the agent renders prompts from the templates, asks the model through agent.llm
(retries, cache, pricing), extracts the program and runs it through the episode in the configured
mode (agent.episodes.modes). Every answer is appended to `llm_responses.jsonl` in the episode directory, a
sequential recording that the replay agent can serve again. Question items (VSP, GamiBench): one
prompt with the item's text and images, the whole answer returned for the family's scorer.
"""

from __future__ import annotations

import json
from pathlib import Path

from agent.agents.base import AnswerTurn, WrittenAnswer
from agent.agents.experience import load_experience
from agent.agents.registry import register_agent
from agent.agents.views import AssemblyView, PlanningView
from agent.config import AgentConfig
from agent.llm import LLMConfig, RetryPolicy, UsageAccount, build_client
from agent.llm.client import LLMClient
from agent.llm.messages import ChatResponse
from agent.llm.prompts import Prompt, image_marker, load_template
from jarvis_sim.records import TokenAccount
from jarvis_sim.tasks.question import QuestionItem
from jarvis_sim.tasks.registry import QuestionFamily

RECORDING_FILE = "llm_responses.jsonl"


def llm_config(config: AgentConfig, model: str) -> LLMConfig:
    """The LLM client's config from the agent's (model string, endpoint, timeout, retries, cache)."""
    opts = config.llm
    return LLMConfig(
        model=model, timeout_s=opts.timeout_s, api_key_env=opts.api_key_env, base_url=opts.base_url,
        retry=RetryPolicy(max_attempts=opts.max_attempts, base_delay_s=opts.retry_base_delay_s),
        cache_dir=Path(opts.cache_dir) if opts.cache_dir else None,
    )


class _EpisodeWriter:
    """Asks the model for one episode, counting usage and recording every answer."""

    def __init__(self, agent: LLMAgent, recording: Path | None):
        self.agent, self.recording = agent, recording
        self.account = UsageAccount()
        self.experience = agent.experience

    def usage(self) -> TokenAccount:
        """Every answer's cost, cached ones and retried calls included."""
        return self.account.to_record()

    def write(self, prompt: Prompt) -> WrittenAnswer:
        """One model call for one prompt."""
        response = self.agent.ask(prompt, self.account)
        if self.recording is not None:
            line = {
                "text": response.text, "model": response.model, "usage": response.usage.model_dump(),
                "finish_reason": response.finish_reason,
            }
            with self.recording.open("a", encoding="utf-8") as fh:
                fh.write(json.dumps(line, ensure_ascii=False) + "\n")
        cost = 0.0 if response.cached else response.cost_usd
        return WrittenAnswer(response.text, response.usage.input_tokens, response.usage.output_tokens, cost)


@register_agent("llm")
class LLMAgent:
    """JARVIS-agentic: an LLM writes programs against the skill library, in one of the paper's modes."""

    def __init__(self, config: AgentConfig):
        if not config.model:
            raise ValueError("the llm agent needs a model string (--model), e.g. 'openai:gpt-4o'")
        self.config = config
        self.client: LLMClient = build_client(llm_config(config, self.model_string()))
        self.experience = load_experience(Path(config.experience_file)) if config.experience_file else None

    def model_string(self) -> str:
        """The model string the client is built from."""
        assert self.config.model is not None
        return self.config.model

    def ask(self, prompt: Prompt, account: UsageAccount | None = None) -> ChatResponse:
        """Send one prompt to the model (errors after the retry policy propagate)."""
        request = prompt.request(
            temperature=self.config.temperature, seed=self.config.seed, max_tokens=self.config.max_tokens
        )
        return self.client.chat(request, account)

    def program_writer(self, view: AssemblyView) -> _EpisodeWriter:
        """The model as the episode's program writer; its answers are recorded in the episode's folder."""
        return _EpisodeWriter(self, view.episode_dir / RECORDING_FILE)

    def plan_assembly(self, view: PlanningView) -> AnswerTurn:
        """Ask the model for its plan once (manual, initial view, answer format); recorded for replay."""
        prompt = view.prompt()
        writer = _EpisodeWriter(self, view.episode_dir / RECORDING_FILE)
        answer = writer.write(prompt)
        return AnswerTurn(
            text=answer.text, prompt_text=prompt.record_text(), tokens_in=answer.tokens_in,
            tokens_out=answer.tokens_out, cost_usd=answer.cost_usd, cached=writer.account.to_record().cached > 0,
        )

    def answer_question(self, item: QuestionItem, family: QuestionFamily) -> AnswerTurn:
        """Ask the model one question item: its text and images; the whole answer goes to the scorer."""
        prompt = question_prompt(item)
        account = UsageAccount()
        response = self.ask(prompt, account)
        return AnswerTurn(
            text=response.text, prompt_text=prompt.record_text(), tokens_in=response.usage.input_tokens,
            tokens_out=response.usage.output_tokens, cost_usd=account.cost_usd, cached=response.cached,
            extra={"prompt_version": prompt.version, "model": response.model, "attempts": response.attempts},
        )


def question_prompt(item: QuestionItem) -> Prompt:
    """The prompt a question item is asked with, by this agent and by the inspect_ai tasks alike."""
    if item.system is not None:
        # An official protocol's stimulus, verbatim: its system prompt, then each caption right before its
        # image with no separator, so the parts sent are exactly the protocol's text and image parts.
        captions = item.captions or [""] * len(item.images)
        user = item.prompt + "".join(f"{c}{image_marker(p)}" for c, p in zip(captions, item.images, strict=True))
        return Prompt(system=item.system, user=user, versions=[f"{item.family}-official"])
    template = load_template("question_system")
    images = "\n".join(image_marker(p) for p in item.images)
    return Prompt(system=template.render(), user=item.prompt + ("\n" + images if images else ""),
                  versions=[template.tag])


@register_agent("replay")
class ReplayAgent(LLMAgent):
    """Answers from AgentConfig.replay_file (an llm agent's llm_responses.jsonl, or any replay JSONL)."""

    def __init__(self, config: AgentConfig):
        if not config.replay_file:
            raise ValueError("the replay agent needs a recording (--replay-file), e.g. an episode's llm_responses.jsonl")
        if not Path(config.replay_file).is_file():
            raise ValueError(f"replay file {config.replay_file} does not exist")
        super().__init__(config.model_copy(update={"model": f"replay:{config.replay_file}"}))
