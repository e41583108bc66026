"""Extracting the program from model answers, following the documented block policy."""

from __future__ import annotations

import pytest

from agent.llm.code_extract import extract_code, find_code_blocks

TWO_BLOCKS = """Plan: pick the red brick, then place it.

```python
pick("red_2x4")
```

On second thought, verify the grasp:

```python
pick("red_2x4")
assert_held("red_2x4")
```
"""


def test_last_python_block_by_default_first_on_request_concat_joins() -> None:
    last = extract_code(TWO_BLOCKS)
    assert last.ok and last.source == "fenced" and last.blocks_found == 2
    assert last.code == 'pick("red_2x4")\nassert_held("red_2x4")\n'
    assert extract_code(TWO_BLOCKS, "first").code == 'pick("red_2x4")\n'
    assert extract_code(TWO_BLOCKS, "concat").code == 'pick("red_2x4")\n\npick("red_2x4")\nassert_held("red_2x4")\n'
    with pytest.raises(ValueError, match="unknown extraction policy 'middle'"):
        extract_code(TWO_BLOCKS, "middle")  # type: ignore[arg-type]


def test_python_tags_beat_untagged_and_other_languages_are_ignored() -> None:
    answer = "```bash\npip install robot\n```\n```\nprint('untagged')\n```\n```py\nprint('tagged')\n```\n```json\n{}\n```"
    assert extract_code(answer).code == "print('tagged')\n"
    untagged_only = "Run:\n```\nmove_to(0.1, 0.2, 0.3)\n```"
    assert extract_code(untagged_only).code == "move_to(0.1, 0.2, 0.3)\n"


def test_tilde_fences_longer_fences_and_nested_backticks() -> None:
    answer = "~~~python\nx = 1\n~~~\n````python\ns = '''\n```\n'''\n````"
    blocks = find_code_blocks(answer)
    assert [b.code for b in blocks] == ["x = 1", "s = '''\n```\n'''"]
    assert extract_code(answer).code == "s = '''\n```\n'''\n"


def test_indented_fence_is_dedented() -> None:
    answer = "1. Do this:\n   ```python\n   for i in range(2):\n       pick(i)\n   ```"
    result = extract_code(answer)
    assert result.code == "for i in range(2):\n    pick(i)\n" and result.syntax_error is None


def test_unclosed_block_is_taken_and_flagged() -> None:
    result = extract_code("Here you go:\n```python\nfor b in bricks:\n    place(b)")
    assert result.ok and result.truncated and "not closed" in result.message
    assert result.code == "for b in bricks:\n    place(b)\n"
    glued = extract_code("```python\nplace('a')```")
    assert glued.code == "place('a')\n"


def test_syntax_errors_are_reported_not_hidden() -> None:
    result = extract_code("```python\ndef f(:\n    pass\n```")
    assert result.ok and result.code is not None
    assert result.syntax_error is not None and result.syntax_error.startswith("line 1:")


def test_unfenced_program_is_accepted_but_prose_is_not() -> None:
    program = extract_code('pick("a")\nplace_on("a", "b")\n')
    assert program.ok and program.source == "unfenced" and program.code == 'pick("a")\nplace_on("a", "b")\n'
    assert not extract_code('pick("a")', allow_unfenced=False).ok
    for prose in ["Done", "42", "I cannot see the bricks clearly, could you describe them?", "   "]:
        result = extract_code(prose)
        assert not result.ok and result.status == "no_code" and result.code is None and result.source == "none"


def test_garbage_gets_a_clear_no_code_result() -> None:
    result = extract_code("As an AI, I think the robot should probably move the brick somewhere.")
    assert result.status == "no_code"
    assert "no ```python block" in result.message and "As an AI" in result.message
    assert extract_code("").message == "the answer is empty"
    only_shell = extract_code("```bash\nrm -rf /\n```")
    assert not only_shell.ok and "none is Python (bash)" in only_shell.message
    empty_fence = extract_code("```python\n```")
    assert not empty_fence.ok and "hold no Python code" in empty_fence.message
