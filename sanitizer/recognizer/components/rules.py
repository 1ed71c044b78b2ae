"""``rules``: regular-expression rules for identifiers, addresses, dates, ages and quantities.

Each rule is ``(name, label, pattern, group)``: the span is the given capture group (0 = the whole
match). Optional validators reject matches that look like something else (e.g. a phone-like
digit run that is really an ISO date). Rules are written for the general shape of the thing
(ISO/ECHR/postal formats, unit words), not for particular documents.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import regex

from sanitizer.recognizer.registry import recognizer_component
from sanitizer.recognizer.spans import make_span
from sanitizer.types import SEMANTIC_TYPES, EntitySpan

if TYPE_CHECKING:
    from spacy.tokens import Doc

Validator = Callable[[str], bool]

_MONTHS = (
    r"(?:January|February|March|April|May|June|July|August|September|October|November|December|"
    r"Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec)\.?"
)
_DAYS = r"(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)s?"
_NUMBER_WORDS = (
    r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|"
    r"fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|"
    r"eighty|ninety|hundred|several|a few|a couple of|many|some|half an?)"
)
_NUM = r"\d+(?:[.,]\d+)?"
_CURRENCY_CODES = (
    r"(?:EUR|USD|GBP|CHF|SEK|NOK|DKK|ISK|PLN|CZK|HUF|RON|BGN|HRK|RSD|BAM|MKD|ALL|RUB|UAH|MDL|GEL|"
    r"AMD|AZN|TRY|CAD|AUD|JPY|CNY|INR|ITL|FRF|DEM|ATS|BEF|NLG|ESP|PTE|GRD|FIM|IEP|SIT|SKK|LTL|LVL|"
    r"EEK|CYP|MTL)"
)
_CURRENCY_WORDS = (
    r"(?:euros?|cents?|dollars?|pounds?(?:\s+sterling)?|pence|francs?|marks?|kroner|kronor|krona|"
    r"krone|roubles?|rubles?|hryvnias?|hryvnyas?|liras?|lire|lei|leu|zlotys?|zloty|forints?|"
    r"dinars?|kunas?|levs?|leva|korunas?|lari|drams?|manats?|tolars?|escudos?|pesetas?|drachmas?|"
    r"shillings?|yen|yuan|rupees?)"
)
_UNITS = (
    r"(?:kg|kilos?|kilograms?|grams?|g|mg|tonnes?|tons?|km|kilometres?|kilometers?|metres?|"
    r"meters?|m|cm|mm|miles?|feet|foot|ft|inches|litres?|liters?|ml|hectares?|ha|acres?|"
    r"sq\.?\s?m|square\s+metres?|square\s+meters?|m²|km/h|mph|volts?|degrees?)"
)
_STREET_SUFFIX_SAFE = (
    r"(?:Street|Str\.|St\.|Road|Rd\.?|Avenue|Ave\.?|Av\.|Lane|Ln\.?|Boulevard|Blvd\.?|Drive|"
    r"Terrace|Crescent|Parkway|Pkwy\.?|Highway|Hwy\.?|Straße|Strasse)"
)
_STREET_SUFFIX_ANY = (
    _STREET_SUFFIX_SAFE[:-1]
    + r"|Dr\.?|Way|Court|Ct\.?|Place|Pl\.?|Square|Sq\.?|Close|Gardens|Grove|Hill|Hills|Loop|"
    r"Circle|Cir\.?|Row|Walk|Alley|Trail|Mews|Park|Plaza|Ridge|View|Heights|Point|Crossing|"
    r"Junction|Station|Village|Valley|Mill|Mills|Harbor|Harbour|Port|Path|Pike|Spur|Track|"
    r"Wharf|Quay|Green|Rise|Parade|Estate|Passage|Bridge|Bypass|Causeway|Fork|Forks|Glen|Haven|"
    r"Lodge|Manor|Meadow|Meadows|Orchard|Pass|Pines|Plains|Ranch|Ramp|Run|Shore|Shores|Springs|"
    r"Summit|Trace|Tunnel|Turnpike|Union|Vista|Well|Wells|Woods|Expressway|Freeway|Extension)"
)
# Street-name endings in Germanic, Nordic, Baltic, Finnic and Slavic languages ("Koskikatu 25").
_FOREIGN_STREET_END = (
    r"(?:straße|strasse|str\.|weg|gasse|platz|allee|ring|damm|ufer|vej|vei|veien|gade|gate|gata|"
    r"gatan|vägen|väg|gränd|stræde|laan|straat|gracht|plein|dreef|kade|singel|katu|tie|kuja|"
    r"polku|kaari|rinne|tee|tänav|iela|gatvė|utca|út|ulica|ulice|cesta|trg|sokak|sokağ\u0131|caddesi)"
)
_STREET_PREFIX = (
    r"(?:ul\.|ulica|al\.|aleja|os\.|pl\.|plac|rue|avenue|av\.|avda\.|bd\.?|boulevard|chemin|"
    r"impasse|allée|quai|via|viale|vicolo|piazza|piazzale|corso|largo|calle|avenida|paseo|camino|"
    r"carrer|rua|praça|travessa|estrada|rodovia|strada|bulevardul|bulevard|str\.|ulitsa|prospekt|"
    r"prospect|pr\.|vulytsia|vul\.)"
)
_CAP_WORD = r"\p{Lu}[\p{L}'\u2019.\-]*"
# Function words that title-case headlines capitalise ("5 Musicians Of The 70s" is no address).
_TITLE_FUNCTION_WORD = r"(?:The|Of|And|In|For|To|A|An|On|At|By|With|From|Or|Is|Are|Was|Were)"
# Street-type words written as separate lower-case words before the house number.
_STREET_WORD = (
    r"(?:utca|út|tér|u\.|körút|köz|sor|fasor|str\.?|ulica|ul\.|ulice|gatan|gata|gate|vej|väg|"
    r"vägen|veien|laan|straat|strasse|straße|gasse|weg|tie|katu|tee|iela|cesta|sokak|caddesi)"
)
_ORG_SUFFIX = (
    r"(?:Inc\.?|Incorporated|Ltd\.?|Limited|LLC|LLP|L\.P\.|PLC|plc|GmbH|AG|S\.A\.|SA|SARL|S\.p\.A\.|"
    r"SpA|S\.L\.|B\.V\.|BV|N\.V\.|NV|AB|ASA|A/S|Oy|Oyj|Sp\. z o\.o\.|s\.r\.o\.|d\.o\.o\.|Corp\.?|"
    r"Corporation|Co\.|Company|Group|Holdings?|Partners|Associates|Technologies|Technology|"
    r"Systems|Solutions|Consulting|Consultants|Industries|Enterprises|Ventures|Capital|"
    r"Investments|Insurance|Bank|Bancorp|Labs|Laboratories|Pharmaceuticals|Analytics|Software|"
    r"Networks|Media|Services|Logistics|Foundation|Institute|Trust|Society|Association|"
    r"Federation|Union|Agency|Authority|Council|Committee|Commission|Ministry|Department|"
    r"University|College|Academy|School|Hospital|Clinic|Orchestra|Club|Party|Church|Press|"
    r"Records|Studios|Motors|Airlines|Airways|Energy|Electric|Telecom)"
)
_PARTICLE = r"(?:de|la|le|du|des|di|del|della|da|do|dos|das|van|von|der|den|ter|el|al|y|e)"


def _digit_count(s: str) -> int:
    return sum(ch.isdigit() for ch in s)


def _phone_ok(s: str) -> bool:
    digits = _digit_count(s)
    if digits < 7 or digits > 15:
        return False
    # ISO dates, year ranges and decimals are not phone numbers.
    return not regex.fullmatch(r"\d{4}-\d{2}-\d{2}|\d{4}\s*[-\u2013]\s*\d{4}|\d+[.,]\d+", s.strip())


def _card_ok(s: str) -> bool:
    return 12 <= _digit_count(s) <= 19


def _year_ok(s: str) -> bool:
    return 1800 <= int(s) <= 2099


def _alnum_code_ok(s: str) -> bool:
    letters = sum(ch.isalpha() for ch in s)
    digits = _digit_count(s)
    return digits >= 2 and letters >= 1 and len(s) >= 5


def _case_number_ok(s: str) -> bool:
    # Dates, decimals and dotted IPs have their own rules and labels.
    if _digit_count(s) < 4:
        return False
    return not regex.fullmatch(
        r"\d+[.,]\d+|\d{4}-\d{2}-\d{2}|\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}|(?:\d{1,3}\.){3}\d{1,3}", s
    )


def _age_ok(s: str) -> bool:
    return 0 < int(s) < 125


@dataclass(frozen=True)
class Rule:
    """A named pattern; ``group`` selects the capture group that becomes the span."""

    name: str
    label: str
    pattern: str
    group: int = 0
    flags: int = 0
    validator: Validator | None = None

    def __post_init__(self) -> None:
        if self.label not in SEMANTIC_TYPES:
            raise ValueError(f"unknown label {self.label!r}")


DEFAULT_RULES: tuple[Rule, ...] = (
    # --- CODE: structured identifiers ---
    Rule("email", "CODE", r"(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)*\.\p{L}{2,}"),
    Rule("url", "CODE", r"\b(?:https?://|ftp://|www\.)[^\s<>\"'()\[\]]+", flags=regex.I),
    Rule(
        "domain",
        "CODE",
        r"(?<![\w@./-])(?:[\p{L}\d](?:[\p{L}\d-]{0,61}[\p{L}\d])?\.)+"
        r"(?:com|org|net|edu|gov|int|mil|info|biz|name|io|eu|[a-z]{2})(?:\.[a-z]{2})?"
        r"(?:/[^\s<>\"']*)?(?![\w@-])",
    ),
    Rule(
        "ipv4",
        "CODE",
        r"(?<![\d.])(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)(?![\d.]\d)",
    ),
    Rule(
        "ipv6",
        "CODE",
        r"(?<![\w:])(?:[0-9A-Fa-f]{1,4}:){7}[0-9A-Fa-f]{1,4}(?![\w:])"
        r"|(?<![\w:])(?:[0-9A-Fa-f]{1,4}:){1,6}:(?:[0-9A-Fa-f]{1,4}:){0,5}[0-9A-Fa-f]{1,4}(?![\w:])",
    ),
    Rule("iban", "CODE", r"\b[A-Z]{2}\d{2}(?:[ ]?[A-Z0-9]{4}){2,7}(?:[ ]?[A-Z0-9]{1,3})?\b"),
    Rule("ssn", "CODE", r"\b\d{3}-\d{2}-\d{4}\b"),
    Rule(
        "card_number",
        "CODE",
        r"(?<![\d-])\d{4}(?:[ -]?\d{2,4}){2,4}(?:[ -]?\d{1,3})?(?![\d-])",
        validator=_card_ok,
    ),
    Rule(
        "phone",
        "CODE",
        r"(?<![\w/.,-])(?:\+\d{1,3}[\s.-]?|00\d{1,3}[\s.-]?)?(?:\(\d{1,5}\)[\s.-]?)?\d{1,8}"
        r"(?:[ .-]\d{1,8}){0,5}(?:\s?(?:x|ext\.?|extension)\s?\d{1,6})?(?![\w/]|-\d|[.,]\d)",
        validator=_phone_ok,
    ),
    # ECHR application numbers ("no. 36110/97") and similar number/year case references.
    Rule("application_number", "CODE", r"(?<![\w/])\d{1,6}/\d{2}(?:\d{2})?(?![\w/])"),
    Rule(
        "case_number",
        "CODE",
        r"(?<![\w/-])(?:[\p{Lu}]{1,6}[-/.]?)?\d{1,6}(?:[-/.]\d{1,6}){1,4}(?:[-/][\p{Lu}\d]{1,6})?(?![\w/-])",
        validator=_case_number_ok,
    ),
    Rule(
        "alphanumeric_code",
        "CODE",
        r"(?<![\w-])(?=[\p{Lu}\d-]*\d)(?=[\p{Lu}\d-]*\p{Lu})[\p{Lu}\d]+(?:-[\p{Lu}\d]+)*(?![\w-])",
        validator=_alnum_code_ok,
    ),
    Rule("long_number", "CODE", r"(?<![\w.,-])\d{5,}(?![\w-]|[.,]\d)"),
    Rule("licence_plate", "CODE", r"\b[A-Z]{1,3}-\d{1,4}(?:-[A-Z]{1,3})?\b"),
    # --- LOC: postcodes and street addresses ---
    Rule("postcode_uk", "LOC", r"\b[A-Z]{1,2}\d[A-Z\d]?\s?\d[A-Z]{2}\b"),
    Rule("postcode_ca", "LOC", r"\b[A-Z]\d[A-Z]\s?\d[A-Z]\d\b"),
    # "7412 SL Deventer": only before a capitalised place name or at the end of a line/segment,
    # so that "in 1998 EU law" is not taken for a postcode.
    Rule(
        "postcode_nl",
        "LOC",
        r"(?<![\w-])[1-9]\d{3}\s?[A-Z]{2}(?![\w-])(?=[ \t]+\p{Lu}\p{Ll}|[ \t]*(?:\n|$|,))",
    ),
    Rule("postcode_hyphen", "LOC", r"(?<![\w-])\d{2,5}-\d{3,4}(?![\w-])"),
    Rule(
        "postcode_labelled",
        "LOC",
        r"\b(?:zip(?:\s?code)?|post(?:al)?\s?code|postcode|PLZ|CAP|CEP)\b[\s:#.]*"
        r"([A-Z]{0,2}[\d][\dA-Z -]{1,8}[\dA-Z])",
        group=1,
        flags=regex.I,
    ),
    Rule(
        "city_state_zip",
        "LOC",
        rf"(?:{_CAP_WORD}[ \t]+){{0,3}}{_CAP_WORD},[ \t]*[A-Z]{{2}}[ \t]+\d{{5}}(?:-\d{{4}})?\b",
    ),
    Rule(
        "unit",
        "LOC",
        r"\b(?:Apt|Apartment|Suite|Ste|Unit|Flat|Floor|Fl|Room|Rm|Postbox|P\.?\s?O\.?\s?Box|"
        r"Box|PSC|Bldg|Building|Block)\.?\s?#?\s?\d+[A-Za-z]?\b",
        flags=regex.I,
        validator=lambda s: not s.islower() or s.startswith(("apt", "suite", "flat")),
    ),
    Rule(
        "military_address",
        "LOC",
        r"\b(?:(?:USNS|USS|USNV|USCGC|HMS)\s+\p{Lu}[\p{L}-]+(?:\s+(?!(?:FPO|APO|DPO)\b)\p{Lu}[\p{L}-]+)?"
        r"|Unit\s+\d{4}\s+Box\s+\d{4}|PSC\s+\d{4},?\s+Box\s+\d{4})"
        r"(?:[\s,]*(?:FPO|APO|DPO)\s+(?:AA|AE|AP)\s+\d{5})?"
        r"|\b(?:FPO|APO|DPO)\s+(?:AA|AE|AP)\s+\d{5}\b",
    ),
    Rule(
        "street_numbered",
        "LOC",
        rf"\b\d{{1,5}}[A-Za-z]?(?:[ \t]+\d{{1,5}})?[ \t]+"
        rf"(?:(?:{_CAP_WORD}|{_PARTICLE})[ \t]+){{0,4}}"
        rf"{_CAP_WORD}[ \t]+{_STREET_SUFFIX_ANY}(?![\p{{L}}])",
    ),
    Rule(
        "street_named",
        "LOC",
        rf"\b(?:{_CAP_WORD}[ \t]+){{1,3}}{_STREET_SUFFIX_SAFE}(?![\p{{L}}])"
        r"(?:[ \t]+\d{1,5}[A-Za-z]?\b)?",
    ),
    Rule(
        "street_foreign_suffix",
        "LOC",
        rf"(?:\b\d{{1,5}}[ \t]+)?(?:{_CAP_WORD}[ \t]+){{0,2}}"
        rf"\p{{Lu}}[\p{{L}}\-]*{_FOREIGN_STREET_END}"
        r"[ \t]+\d{1,5}[A-Za-z]?\b",
        flags=regex.V1,
    ),
    Rule(
        "street_prefix",
        "LOC",
        rf"(?i:\b{_STREET_PREFIX})[ \t]+(?:(?:{_CAP_WORD}|{_PARTICLE}|\d{{1,3}}\.?)[ \t]+){{0,5}}"
        rf"{_CAP_WORD}(?:[ \t]+\d{{1,5}}[A-Za-z]?\b)?",
    ),
    Rule(
        "street_number_words_number",
        "LOC",
        rf"\b\d{{1,5}}[ \t]+(?:(?!{_MONTHS}\b|{_TITLE_FUNCTION_WORD}\b){_CAP_WORD}[ \t]+){{1,3}}"
        r"\d{1,5}[A-Za-z]?\b",
    ),
    Rule(
        "street_corner",
        "LOC",
        rf"\b(corner\s+of\s+(?:{_CAP_WORD}|\d{{1,5}})"
        rf"(?:[ \t]+(?:{_CAP_WORD}|{_PARTICLE}|\d{{1,5}}\.?|"
        rf"{_STREET_WORD}|st\.?|rd\.?)){{0,5}}[ \t]+(?:and|&)[ \t]+(?:{_CAP_WORD}|\d{{1,5}})"
        rf"(?:[ \t]+(?:{_CAP_WORD}|{_PARTICLE}|\d{{1,5}}\.?)){{0,4}})",
        group=1,
    ),
    Rule(
        "street_word_number",
        "LOC",
        rf"\b(?:{_CAP_WORD}[ \t]+){{1,3}}{_STREET_WORD}[ \t]+\d{{1,5}}[A-Za-z]?\b",
    ),
    # --- ORG: capitalised names ending in a legal-form or organisation-type word ---
    Rule(
        "org_suffix",
        "ORG",
        rf"\b{_CAP_WORD}(?:(?:[ \t]+|,[ \t]+|[ \t]+(?:and|&)[ \t]+){_CAP_WORD}){{0,4}}[ \t]+"
        rf"{_ORG_SUFFIX}(?![\p{{L}}])",
    ),
    # --- DATETIME ---
    Rule(
        "iso_datetime",
        "DATETIME",
        r"\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?\b",
    ),
    Rule(
        "numeric_date",
        "DATETIME",
        r"(?<![\d/.-])\d{1,2}[/.-]\d{1,2}[/.-](?:\d{4}|\d{2})(?![\d/.-]|\.\d)",
    ),
    Rule(
        "date_day_month_year",
        "DATETIME",
        rf"\b\d{{1,2}}(?:st|nd|rd|th)?(?:\s+of)?\s+{_MONTHS}(?:,?\s+\d{{4}})?(?!\w)",
    ),
    Rule(
        "date_month_day_year",
        "DATETIME",
        rf"\b{_MONTHS}\s+\d{{1,2}}(?:st|nd|rd|th)?(?:,?\s+\d{{4}})?\b",
    ),
    Rule("month_year", "DATETIME", rf"\b(?:(?:early|mid|late)[- ])?{_MONTHS}\s+\d{{4}}\b"),
    Rule("weekday", "DATETIME", rf"\b{_DAYS}\b"),
    Rule(
        "time",
        "DATETIME",
        r"\b\d{1,2}(?::\d{2}){1,2}(?:\s?(?:a\.m\.|p\.m\.|am|pm|AM|PM))?(?!\d)"
        r"|\b\d{1,2}\s?(?:a\.m\.|p\.m\.|am|pm|AM|PM)(?!\w)",
    ),
    Rule(
        "year",
        "DATETIME",
        r"(?<![\w/.,-])(?:1[89]\d{2}|20\d{2})(?:s|-\d{2,4})?(?![\w/-]|[.,]\d)",
        validator=lambda s: _year_ok(s[:4]),
    ),
    Rule(
        "duration",
        "DATETIME",
        rf"\b(?:\d+(?:[.,]\d+)?|{_NUMBER_WORDS})(?:[- ]and[- ]a[- ]half)?[- ](?:years?|months?|"
        r"weeks?|days?|hours?|minutes?|seconds?|decades?|centuries|century)\b(?![- ]old)",
        flags=regex.I,
    ),
    # --- DEM: ages (the number only, as in TAB and PII corpora) ---
    Rule(
        "age_years_old",
        "DEM",
        r"\b(\d{1,3})(?:[- ]|\s+)(?:years?|yrs?)(?:[- ]|\s+)old\b",
        group=1,
        validator=_age_ok,
    ),
    Rule(
        "age_aged",
        "DEM",
        r"\b(?:aged|age of|age|ages|turned|turning|turns)\s+(\d{1,3})\b",
        group=1,
        flags=regex.I,
        validator=_age_ok,
    ),
    Rule("age_year_old_noun", "DEM", r"\b(\d{1,3})-year-old\b", group=1, validator=_age_ok),
    # --- QUANTITY ---
    Rule(
        "money_code_before",
        "QUANTITY",
        rf"(?:\b{_CURRENCY_CODES}|[€$£¥₽₴])\s?\d[\d,.\s]*\d(?:\s?(?:million|billion|thousand|m|bn))?|[€$£¥]\s?\d",
    ),
    Rule(
        "money_after",
        "QUANTITY",
        rf"\b\d[\d,.\s]*?\d?(?:\s?(?:million|billion|thousand))?\s?(?:{_CURRENCY_CODES}\b|{_CURRENCY_WORDS}\b|[€$£])",
        flags=regex.I,
    ),
    Rule("percent", "QUANTITY", r"\b\d+(?:[.,]\d+)?\s?(?:%|per\s?cent\b|percent\b)"),
    Rule("measure", "QUANTITY", rf"\b\d+(?:[.,]\d+)?\s?{_UNITS}(?![\p{{L}}\d])"),
    # --- PERSON after an honorific (the honorific itself is DEM, from the gazetteer) ---
    Rule(
        "honorific_name",
        "PERSON",
        r"\b(?:Mr|Mrs|Ms|Mx|Miss|Dr|Prof|Sir|Dame|Mme|Mlle|Herr|Frau)\.?[ \t]+"
        r"((?:\p{Lu}\.[ \t]*)*\p{Lu}[\p{L}'\u2019-]+"
        r"(?:[ \t]+(?:\p{Lu}\.[ \t]*)*\p{Lu}[\p{L}'\u2019-]+){0,3})",
        group=1,
    ),
)


# Rules whose matches start an address; the address then grows over following segments.
ADDRESS_SEED_RULES = frozenset(
    {
        "street_numbered",
        "street_named",
        "street_foreign_suffix",
        "street_prefix",
        "street_number_words_number",
        "street_word_number",
        "street_corner",
        "unit",
        "military_address",
    }
)
_ADDR_WORD = (
    r"(?:\p{Lu}[\p{L}\p{M}'\u2019.\-]*|\d{1,6}(?:[- ]\d{2,4})?[A-Za-z]?|\([\p{L}\p{M} .'-]+\))"
)
_ADDR_SEGMENT = regex.compile(
    rf"(?P<sep>[ \t]*,[ \t]*(?:\n[ \t>]*)?|[ \t]*\n[ \t>]*(?:,[ \t]*)?|[ \t]+)"
    rf"(?P<seg>{_ADDR_WORD}(?:[ \t]+(?:{_ADDR_WORD}|{_PARTICLE}|sur|am|an|im|bei))*)"
)
_MAX_ADDRESS_SEGMENTS = 5
_MAX_SEGMENT_WORDS = 5


def extend_address(text: str, end: int) -> int:
    """End offset of an address that starts before ``end``, grown over the following segments.

    A segment is a run of capitalised words, numbers (postcodes) or parenthesised names that
    follows a comma, a line break or spaces. A segment that starts on a new line must fill that
    line (address blocks put one item per line), so running text after an address is not taken.
    """
    for _ in range(_MAX_ADDRESS_SEGMENTS):
        m = _ADDR_SEGMENT.match(text, end)
        if m is None or len(m.group("seg").split()) > _MAX_SEGMENT_WORDS:
            break
        if "\n" in m.group("sep"):
            line_end = text.find("\n", m.end())
            tail = text[m.end() : line_end if line_end >= 0 else len(text)]
            if tail.strip() and not tail.lstrip().startswith(","):
                break
        end = m.end()
    return end


class RuleMatcher:
    """Runs every rule over the text; overlapping matches are all returned."""

    needs_doc = False
    needs_pipes: tuple[str, ...] = ()

    def __init__(
        self, name: str, rules: Sequence[Rule], confidence: float, extend_addresses: bool = True
    ) -> None:
        self.name = name
        self.extend_addresses = extend_addresses
        self.rules = tuple(rules)
        self.confidence = confidence
        self._compiled = [
            (rule, regex.compile(rule.pattern, rule.flags | regex.UNICODE)) for rule in self.rules
        ]

    def signature(self) -> str:
        """Component name, rule count and a digest of the patterns."""
        spec = "\n".join(f"{r.name}|{r.label}|{r.pattern}|{r.group}" for r in self.rules)
        digest = hashlib.sha1(spec.encode()).hexdigest()[:8]
        return f"{self.name}[{len(self.rules)}:{digest}:addr={int(self.extend_addresses)}]"

    def __call__(self, text: str, doc: Doc | None = None) -> list[EntitySpan]:
        """All rule matches over ``text`` (``doc`` is unused)."""
        out: list[EntitySpan] = []
        for rule, pattern in self._compiled:
            for match in pattern.finditer(text):
                start, end = match.span(rule.group)
                if start < 0 or start >= end:
                    continue
                if rule.validator is not None and not rule.validator(text[start:end]):
                    continue
                if self.extend_addresses and rule.name in ADDRESS_SEED_RULES:
                    end = extend_address(text, end)
                span = make_span(
                    text, start, end, rule.label, self.name, self.confidence, {"rule": rule.name}
                )
                if span is not None:
                    out.append(span)
        out.sort(key=lambda s: (s.start, s.end))
        return out


@recognizer_component("rules")
def make_rules(
    rules: Sequence[Rule] | None = None,
    exclude: Sequence[str] = (),
    confidence: float = 0.9,
    extend_addresses: bool = True,
) -> RuleMatcher:
    """Factory: ``rules`` replaces the defaults; ``exclude`` drops rules by name.

    ``extend_addresses`` grows street/unit matches over the rest of the address (city, region,
    postcode, country), see ``extend_address``.
    """
    chosen = [r for r in (rules if rules is not None else DEFAULT_RULES) if r.name not in exclude]
    return RuleMatcher("rules", chosen, confidence, extend_addresses)
