"""A static checker's dialect: what its codes and words mean, read by the shared core.

Each static checker says the same things in its own words: that a member is
missing, that an abstract class is instantiated, that an import did not
resolve. The verdict core (``_interpret``), the reading of a checked class's
own lines (``_class_diagnostics``) and the reading of a checker's nested
reasons (``_said``) are one piece of code for every static checker; what
differs is this value, which each checker's module defines for itself. The
core never names a checker.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Dialect", "Said"]


@dataclass(frozen=True, slots=True)
class Said:
    """One kind of diagnostic, as a checker reports it: by its error codes, or
    by words that say it whatever the code."""

    codes: frozenset[str] = frozenset()
    words: re.Pattern[str] | None = None

    def says(self, code: str | None, message: str) -> bool:
        return code in self.codes or (self.words is not None and self.words.search(message) is not None)


_NEVER = Said()
#: A pattern that matches no line.
NO_LINE = re.compile(r"(?!)")


@dataclass(frozen=True, slots=True)
class Dialect:
    """What a static checker's diagnostics mean to the shared core."""

    #: Instantiating an abstract class (its message lists the abstract members).
    abstract: Said
    #: A member that does not exist.
    missing: Said
    #: An import it could not resolve (a third-party module the plugin uses).
    import_error: Said
    #: An override compared with a base's declaration (sglang's calls are judged member by member instead).
    override: Said
    #: Assigning to a name whose declared type is a base's.
    assignment: Said = _NEVER
    #: A reason that says a call does not bind (a keyword it lacks, too many
    #: positional arguments), not that a type differs: what the instance
    #: sglang builds can settle (the replay's evidence).
    call_words: re.Pattern[str] = NO_LINE
    #: A class decorator's application, reported at the class statement.
    decorator_application: Said = _NEVER
    #: Typing hygiene, never a problem of what sglang does with the class.
    hygiene: Said = _NEVER
    #: "this class has no such attribute", naming the class in the group ``owner``.
    no_attribute: re.Pattern[str] = NO_LINE
    #: Headlines that only say the value's type is not the variable's; the
    #: type the checker read is the group ``read``.
    headlines: tuple[re.Pattern[str], ...] = ()
    #: A wrapper line ("X is incompatible with protocol P") whose reasons are nested under it.
    protocol_wrapper: re.Pattern[str] = NO_LINE
    #: A line naming one member of a protocol (group ``member``) and what is wrong with it (group ``what``).
    member_header: re.Pattern[str] = NO_LINE
    #: What an injection site's call builds, when it is no DraftWorker (group ``built``).
    site_builds: re.Pattern[str] = NO_LINE
    #: A line of an abstract-class error that names abstract members (group
    #: ``names``: the names, each quoted as the checker quotes them, or one bare name).
    abstract_names: re.Pattern[str] = NO_LINE
    #: A line of it that says how many it leaves unnamed (group ``more``), or
    #: how many there are in all (group ``total``).
    abstract_more: re.Pattern[str] = NO_LINE
    #: A comment with which the author silences the checker on one line.
    line_silence: re.Pattern[str] = NO_LINE
    #: Any comment addressed to the checker (blanked in the shadow of a module
    #: holding an injection site, so that none silences the rewritten call).
    directive: re.Pattern[str] = NO_LINE

    def headline_read(self, line: str) -> str | None:
        """The type a headline ``line`` says the checker read (None: ``line`` is no headline)."""
        for pattern in self.headlines:
            match = pattern.match(line)
            if match is not None:
                return match.group("read")
        return None
