"""The JudgeAgent interview's options, and the run services its steps receive."""

from __future__ import annotations

from pydantic import Field, model_validator

from judgeagent.config import DecontaminationMode, DifficultyConfig, GenerationOptions, GuardOptions, Level
from judgeagent.engine.services import RunServices
from judgeagent.records import InterviewRecord
from judgeagent.stages.planning import Setting

TABLE2 = (("ACC1", "acc1"), ("ACC2", "acc2"), ("CR", "cr"), ("CtE", "cte"))  # the paper's Table 2 columns

# The paper's ablation: four arms interviewed from the same seed answers.
ABLATIONS = (
    Setting("full"),
    Setting("no graph", no_graph=True),
    Setting("no adaptive difficulty", fixed_difficulty="medium"),
    Setting("no extension", no_extension=True),
)


class JudgeAgentOptions(GenerationOptions, GuardOptions):
    """The JudgeAgent interview's settings."""

    rounds: int = Field(default=3, ge=0, description="Extension rounds per batch.")
    ablation: bool = Field(default=False, description="Run the paper's four ablation arms (full, no graph, fixed medium difficulty, no extension) on the same seed answers (`judgeagent ablate`).")
    no_graph: bool = Field(default=False, description="Ablation: path chunks drawn at random from the corpus.")
    fixed_difficulty: Level | None = Field(default=None, description="Ablation: this difficulty for every generated question.")
    no_extension: bool = Field(default=False, description="Ablation: feedback from the seed answers only.")
    eval_every_round: bool = Field(default=False, description="Feedback and validation after round 0..R (gives by_round).")
    reask_correct: bool = Field(default=False, description="Also re-ask batches the target got fully right.")
    summary: bool = Field(default=True, description="Ask the judge for the end-of-run interview summary (summary.json).")
    controls: bool = Field(default=True, description="Also re-ask with no suggestions and with a placebo suggestion.")
    bootstrap: int = Field(default=2000, ge=100, description="Bootstrap resamples for the 95% confidence intervals.")
    decontaminate: DecontaminationMode | None = Field(default=None, description="Rewrite the seed questions first, with this method.")
    reask_extended: bool = Field(default=False, description="Also re-ask the follow-up questions with the suggestions (Appendix E.2).")
    transfer: bool = Field(default=False, description="Apply source batches' suggestions to held-out seed questions (Appendix E.2).")
    difficulty: DifficultyConfig = Field(default_factory=lambda: DifficultyConfig(), description="The difficulty controller.")

    @model_validator(mode="after")
    def _one_arm_or_all(self) -> JudgeAgentOptions:
        # The ablation runs every arm; picking one beside it would be silently overridden.
        chosen = [name for name, on in (("no_graph", self.no_graph), ("fixed_difficulty", self.fixed_difficulty), ("no_extension", self.no_extension)) if on]
        if self.ablation and chosen:
            raise ValueError(f"ablation runs every arm; {', '.join(chosen)} picks one arm of a single interview")
        return self


def arms(opts: JudgeAgentOptions) -> tuple[Setting, ...]:
    """Which modules are on, per arm; records and plans are kept per arm."""
    return ABLATIONS if opts.ablation else (Setting("full", opts.no_graph, opts.fixed_difficulty, opts.no_extension),)


Run = RunServices[JudgeAgentOptions, InterviewRecord]  # what each step of the protocol is handed
