"""Reply stripping: the project's ``strip_reply`` against the ``mail-parser-reply`` library on realistic replies.

    python bench/reply_stripping.py [--repeat 21] [--library-languages all|reply] [--verbose]

Players answer a notification mail with one command line (``VOTE RED``, ``VAI 3``, ``GŁOSUJ CZERWONY``), mostly
above the quoted mail and a signature. The corpus (``tests/server/reply_corpus.py``, which the tests check
``strip_reply`` against) holds reply bodies in English, Italian and Polish: every reply body the other tests use
and replies written after what Gmail, Outlook, Apple Mail, Thunderbird, Yahoo, Windows Mail, Samsung Email and
Italian and Polish webmails write, bottom-posted (inline) and empty replies, and HTML-only replies made text.

Each item holds the raw body, its language and the text a stripper should keep. An item passes when the stripped
text keeps the command line and keeps no line of the quoted mail, its attribution or header block, or a signature
(lines are compared without surrounding whitespace). An own line of the player dropped along the way (a greeting,
"Thanks, Ann") does not fail an item; ``exact`` counts the items whose kept lines are exactly the expected ones, and
``wrong_command`` the items whose first kept command line is a quoted one (``VOTE RED`` from the quoted list, which
``parse_reply`` reads as a command: the player's vote would go elsewhere).

Strippers:

- ``strip_reply``: ``server.text.grammar.strip_reply``;
- ``mailparser_reply.latest_reply``: ``EmailReplyParser(languages=[...]).parse_reply(body)``, the library's call
  for "the latest reply" (the first fragment before a header it recognises, signature included);
- ``mailparser_reply.body``: ``EmailReplyParser(languages=[...]).read(body).replies[0].body``, the same fragment
  without its header and the signatures and disclaimers the library recognises.

The library gets ``languages=["en", "it", "pl"]`` for every body (``--library-languages all``, the default) or only
the body's own language, as the server knows each player's (``reply``); it always adds English itself.

Prints one JSON object on stdout: the items per language; per stripper the items passed per language and in total,
``exact``, ``wrong_command``, the failures (item, language and what went wrong) and the median and maximum time
per reply in microseconds (each item's time is the median of ``--repeat`` calls). ``--verbose`` prints every
item's result per stripper on stderr.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import json
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # `python bench/reply_stripping.py` from a checkout that is not installed
    sys.path.insert(0, str(ROOT))

from server.text.grammar import strip_reply  # noqa: E402 - needs the path above
from tests.server.reply_corpus import COMMANDS, CORPUS, LANGS, Case, lines_of  # noqa: E402

Stripper = Callable[[str, str], str]  # (body, language) -> kept text

# --- strippers ----------------------------------------------------------------------------------------------------


def project_stripper() -> tuple[str, Stripper]:
    return "server.text.grammar", lambda body, lang: strip_reply(body)


def library_strippers(languages: str) -> tuple[dict[str, Any], dict[str, Stripper]]:
    """The library's two readings of the latest reply, with one parser per language configuration."""
    try:
        from mailparser_reply import EmailReplyParser
    except ImportError:
        sys.exit("mail-parser-reply is not installed: pip install mail-parser-reply")
    parsers = {lang: EmailReplyParser(languages=list(LANGS if languages == "all" else [lang])) for lang in LANGS}

    def latest(body: str, lang: str) -> str:
        return parsers[lang].parse_reply(body) or ""

    def without_signature(body: str, lang: str) -> str:
        replies = parsers[lang].read(body).replies
        return replies[0].body if replies else ""

    info = {
        "version": importlib.metadata.version("mail-parser-reply"),
        "languages": {lang: ",".join(dict.fromkeys([*p.languages, "en"])) for lang, p in parsers.items()},
    }
    return info, {"mailparser_reply.latest_reply": latest, "mailparser_reply.body": without_signature}


# --- scoring --------------------------------------------------------------------------------------------------------


@dataclass
class Verdict:
    """One stripped text judged: what went wrong (nothing: the item passes), whether it is exactly the expected
    text, and whether its first command line is a quoted one, which ``parse_reply`` would apply."""

    problems: list[str]
    exact: bool
    wrong_command: bool


def judge(case: Case, got: str) -> Verdict:
    """The stripped text ``got`` of one corpus item against the item's expected text."""
    expected, kept = lines_of(case.kept), lines_of(got)
    command = case.command_line
    problems = [f"command {command!r} lost"] if command is not None and command not in kept else []
    allowed = Counter(expected)
    leaked: list[str] = []
    first: tuple[str, bool] | None = None  # the first command line kept, and whether it is the player's
    for line in kept:  # a line beyond the expected ones is quoted, attribution, header or signature text
        own = allowed[line] > 0
        if own:
            allowed[line] -= 1
        else:
            leaked.append(line)
        if first is None and (line == command or line.lstrip("> \t") in COMMANDS):
            first = (line, own)
    if first is not None and not first[1]:
        problems.insert(0, f"a quoted command comes first: {first[0]!r}")
    if leaked:
        shown = "; ".join(repr(line[:60]) for line in leaked[:3]) + (" …" if len(leaked) > 3 else "")
        problems.append(f"kept {len(leaked)} quoted/attribution/signature line(s): {shown}")
    return Verdict(problems, kept == expected, first is not None and not first[1])


def run(fn: Stripper, case: Case, repeat: int) -> tuple[str, float]:
    """The stripped text and the median time of ``repeat`` calls, in microseconds."""
    got = fn(case.body, case.lang)
    times = []
    for _ in range(repeat):
        start = time.perf_counter_ns()
        fn(case.body, case.lang)
        times.append(time.perf_counter_ns() - start)
    return got, statistics.median(times) / 1000


def bench(strippers: dict[str, Stripper], repeat: int, verbose: bool) -> dict[str, Any]:
    """Every stripper on every corpus item: passes per language, exact items, failures and timings."""
    results: dict[str, Any] = {}
    for name, fn in strippers.items():
        passed = dict.fromkeys((*LANGS, "total"), 0)
        exact = wrong = 0
        failures = []
        times = []
        for case in CORPUS:
            try:
                got, micros = run(fn, case, repeat)
                verdict = judge(case, got)
            except Exception as error:  # a crash fails the item, it does not stop the benchmark
                got, micros, verdict = "", 0.0, Verdict([f"raised {error!r}"], False, False)
            times.append(micros)
            exact += verdict.exact
            wrong += verdict.wrong_command
            if verdict.problems:
                failures.append({"item": case.name, "lang": case.lang, "problem": "; ".join(verdict.problems)})
            else:
                passed[case.lang] += 1
                passed["total"] += 1
            if verbose:
                outcome = "FAIL" if verdict.problems else "exact" if verdict.exact else "pass"
                print(f"{case.name} [{case.lang}] {name}: {outcome} {micros:.1f} µs", file=sys.stderr)
                for problem in verdict.problems:
                    print(f"    {problem}", file=sys.stderr)
                print(f"    kept {got!r}", file=sys.stderr)
        results[name] = {
            "passed": passed,
            "exact": exact,
            "wrong_command": wrong,
            "median_us": round(statistics.median(times), 1),
            "max_us": round(max(times), 1),
            "failures": failures,
        }
    return results


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=21, help="calls per item and stripper for the timing")
    parser.add_argument(
        "--library-languages",
        choices=("all", "reply"),
        default="all",
        help="the library's languages: en, it and pl for every reply (all), or the reply's own (reply)",
    )
    parser.add_argument("--verbose", action="store_true", help="every item's result per stripper on stderr")
    parser.add_argument("--tiny", action="store_true", help="for CI: --repeat 1, without the library if missing")
    args = parser.parse_args(argv)
    if args.tiny:
        args.repeat = 1
    source, strip_reply = project_stripper()
    if args.tiny and importlib.util.find_spec("mailparser_reply") is None:  # CI: strip_reply alone
        library, strippers = None, {}
    else:
        library, strippers = library_strippers(args.library_languages)
    counts = Counter(case.lang for case in CORPUS)
    output = {
        "items": {**{lang: counts[lang] for lang in LANGS}, "total": len(CORPUS)},
        "repeat": args.repeat,
        "strip_reply_module": source,
        "mail_parser_reply": library,
        "strippers": bench({"strip_reply": strip_reply, **strippers}, args.repeat, args.verbose),
    }
    print(json.dumps(output, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
