"""Intent routing: what a message is about, and which stored facts belong to that topic.

A question rarely shares words with the fact it needs ("can I take something for this
headache?" needs "ibuprofen upsets my stomach"; "what does the kid like?" needs "my son
Tim loves dinosaurs"). Recall therefore routes by intent: each :class:`Intent` has
words that reveal it in a message and words (plus categories and subject kinds) that
place a fact in its topic, English and Russian. A message's intents bring in the
current facts of those topics, pinned first (see :mod:`memo_core.memory.recall`).

Relation groups widen who a message names: "my sibling" names a sister or a brother,
"my kid" a son or a daughter, "родители" a mother or a father, "who am I dating" /
"с кем я встречаюсь" the partner.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memo_core.memory.lexicon import FAMILY_RELATIONS

__all__ = ["INTENTS", "RELATION_GROUPS", "Intent", "intents_of", "widen_relations"]


def _p(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE | re.UNICODE)


@dataclass(frozen=True)
class Intent:
    """One topic: ``ask`` finds it in a message; a fact is in it by category, subject
    kind, or a ``topic`` word in its statement."""

    name: str
    ask: re.Pattern[str]
    topic: re.Pattern[str]
    categories: frozenset[str] = frozenset()
    subject_kinds: frozenset[str] = frozenset()
    #: The people of this topic ("colleague" for work, relatives for family): their facts
    #: are routed when the message names nobody in particular ("who runs my team?").
    relations: frozenset[str] = frozenset()

    def holds(self, statement: str, category: str, subject_kind: str) -> bool:
        return (
            category in self.categories
            or subject_kind in self.subject_kinds
            or bool(self.topic.search(statement))
        )


_HEALTH = (
    r"\b(?:health|doctor|gp|medic\w*|meds|pills?|tablets?|drugs?|prescri\w*|dose|dosage|sick|ill|"
    r"pain\w*|ache\w*|headache|fever|cold|flu|allerg\w*|symptoms?|antibiotic\w*|ibuprofen|"
    r"paracetamol|aspirin|vaccin\w*|pharmac\w*|clinic|hospital|treatment|therapy|physio\w*|"
    r"dentist|injur\w*|surgery|condition|diagnos\w*|blood|heart|stomach|skin|rash|sleep|"
    r"pregnan\w*|vitamins?|supplements?)\b|"
    r"здоров\w*|врач\w*|доктор\w*|лекарств\w*|таблет\w*|препарат\w*|рецепт на|доз\w*|болит|"
    r"боль\w*|болез\w*|простуд\w*|температур\w*|аллерг\w*|антибиотик\w*|аптек\w*|больниц\w*|"
    r"лечени\w*|симптом\w*|давлени\w*|желуд\w*|сердц\w*|витамин\w*"
)
_FOOD = (
    r"\b(?:food|foods|eat|eating|ate|dinner|lunch|breakfast|brunch|meal\w*|snack\w*|recipe\w*|"
    r"cook\w*|bake|baking|restaurant\w*|cafe|menu|dish\w*|cuisine|diet\w*|drink\w*|beverage\w*|"
    r"wine|beer|alcohol|coffee|tea|dessert\w*|grocer\w*|takeaway|takeout|order in|vegan|"
    r"vegetarian|gluten|dairy|nuts?|meat|fish|sugar|cake)\b|"
    r"\bед[аыуе]\b|\bем\b|\bесть\b|поесть|ужин\w*|обед\w*|завтрак\w*|перекус\w*|рецепт\w*|"
    r"готов(?:ить|лю|ка)\w*|ресторан\w*|кафе|меню|блюд\w*|кухн\w*|диет\w*|напит\w*|пить|выпить|"
    r"вин[оа]\w*|пив[оа]|алкогол\w*|кофе|ча[йя]\w*|десерт\w*|продукт\w*|сладк\w*|мяс\w*|рыб\w*"
)
_FAMILY = (
    r"\b(?:family|families|kids?|child|children|son|daughter|sibling\w*|sister\w*|brother\w*|"
    r"parents?|mom|mum|mother|dad|father|wife|husband|partner|spouse|grand\w+|aunt|uncle|"
    r"cousin|niece|nephew|in-laws?|relatives?|baby|toddler)\b|"
    r"семь\w*|дет(?:и|ей|ям|ьми)|ребён\w*|ребен\w*|сын\w*|доч\w*|сестр\w*|брат\w*|родител\w*|"
    r"мам\w*|пап\w*|мать|отец|отца|жен[аыеу]|муж\w*|бабушк\w*|дедушк\w*|родн\w*|родствен\w*"
)
_HOME = (
    r"\b(?:home|house|flat|apartment|rent\w*|landlord|lease|mortgage|address|neighbo\w*|"
    r"move|moving|moved|live|living|lives|room|kitchen|garden|furniture|street|city|town|"
    r"internet|broadband|wi-?fi|isp|internet provider|electricity|utilit\w+|heating|council tax|"
    r"water bill)\b|провайдер\w*|"
    r"\bдом\w*|квартир\w*|аренд\w*|ипотек\w*|адрес\w*|сосед\w*|переезд\w*|переех\w*|жив\w*|"
    r"комнат\w*|улиц\w*|город\w*|интернет\w*|электричеств\w*|коммунал\w*|отоплени\w*"
)
_WORK = (
    r"\b(?:work\w*|job|jobs|office|boss|manager|colleague\w*|coworker\w*|team|project\w*|"
    r"career|salary|promotion|client\w*|company|employer|shift|meeting\w*|deadline\w*|"
    r"in charge|report to|supervisor\w*|"
    r"interview\w*|resume|cv)\b|"
    r"работ\w*|офис\w*|начальни\w*|коллег\w*|команд\w*|проект\w*|карьер\w*|зарплат\w*|"
    r"клиент\w*|компани\w*|совещани\w*|собеседован\w*"
)
_TRAVEL = (
    r"\b(?:trip\w*|travel\w*|flight\w*|fly|flying|vacation\w*|holiday\w*|hotel\w*|abroad|"
    r"visa|passport|airport|luggage|pack|packing|journey|tour\w*|destination|booking)\b|"
    r"поездк\w*|путешеств\w*|рейс\w*|лет(?:еть|им|ишь|ит)|отпуск\w*|гостиниц\w*|отел\w*|"
    r"виз[аыу]|паспорт\w*|аэропорт\w*|багаж\w*|тур\w*|билет\w*"
)
_SCHEDULE = (
    r"\b(?:when|schedule\w*|calendar|appointment\w*|deadline\w*|due|date|dates|today|tomorrow|"
    r"tonight|week|weekend|month|upcoming|plans?|planned|book\w*|remind\w*|time|session\w*)\b|"
    r"когда|расписани\w*|календар\w*|приём\w*|прием\w*|срок\w*|дедлайн\w*|сегодня|завтра|"
    r"недел\w*|выходн\w*|месяц\w*|план\w*|напомн\w*|запис\w*"
)
_MONEY = (
    r"\b(?:money|budget\w*|cost\w*|price\w*|pay\w*|paid|fees?|salary|spend\w*|spent|afford|"
    r"bill\w*|expens\w*|cheap|expensive|savings?|save|loan|debt|bank|card|subscription\w*|"
    r"membership\w*|\$|€|£)\b|"
    r"деньг\w*|денег|бюджет\w*|стои\w*|цен\w*|плат\w*|заплат\w*|зарплат\w*|трат\w*|дорог\w*|"
    r"дешев\w*|кредит\w*|долг\w*|банк\w*|карт[аыу]|подписк\w*|абонемент\w*|руб\w*"
)
_VEHICLES = (
    r"\b(?:car|cars|vehicle\w*|drive|driving|drives|drove|bike|bicycle|motorbike|motorcycle|"
    r"scooter|truck|van|suv|ride|parking|park|garage|fuel|petrol|gas|tyres?|tires?|mechanic|"
    r"licen[cs]e|commute\w*|toyota|honda|ford|tesla|mazda|bmw|audi|volkswagen|vw|kia|hyundai|"
    r"skoda|volvo|nissan|subaru|lada|renault|peugeot)\b|"
    r"машин\w*|авто\w*|езж\w*|езд\w*|вожу|водит\w*|велосипед\w*|мотоцикл\w*|самокат\w*|"
    r"парков\w*|гараж\w*|бензин\w*|шин[аыу]|права\b"
)
_PETS = (
    r"\b(?:pets?|dogs?|cats?|puppy|kitten|vet|vets|animal\w*|walkies|leash|litter|"
    r"parrot|hamster|rabbit|fish tank)\b|"
    r"питом\w*|собак\w*|пёс|пес|кот\w*|кош\w*|щен\w*|ветеринар\w*|животн\w*|попуга\w*|хомяк\w*"
)
_PREFERENCES = (
    r"\b(?:prefer\w*|favou?rite\w*|like|likes|love|loves|enjoy\w*|hate|dislike\w*|taste|"
    r"style|suggest\w*|recommend\w*|ideas?|gift\w*|present|what should i|should i|pick|choose)\b|"
    r"предпоч\w*|любим\w*|нрав\w*|люб(?:ит|лю|ишь)|вкус\w*|стил\w*|посовет\w*|порекоменд\w*|"
    r"подар\w*|выбрать|что мне"
)

INTENTS: tuple[Intent, ...] = (
    Intent("health", _p(_HEALTH), _p(_HEALTH), frozenset({"health"})),
    Intent("food", _p(_FOOD), _p(_FOOD + r"|allerg\w*|intoleran\w*|аллерг\w*|непереносим\w*")),
    Intent(
        "family",
        _p(_FAMILY),
        _p(_FAMILY),
        subject_kinds=frozenset({"person"}),
        relations=FAMILY_RELATIONS,
    ),
    Intent("home", _p(_HOME), _p(_HOME)),
    Intent("work", _p(_WORK), _p(_WORK), relations=frozenset({"colleague"})),
    Intent("travel", _p(_TRAVEL), _p(_TRAVEL)),
    Intent("schedule", _p(_SCHEDULE), _p(r"(?!)"), frozenset({"plan", "routine"})),
    Intent(
        "money",
        _p(_MONEY),
        _p(_MONEY + r"|[$€£₽]\s?\d|\d\s?(?:eur|euros?|usd|dollars?|pounds?|gbp|руб\w*|₽)"),
    ),
    Intent("vehicles", _p(_VEHICLES), _p(_VEHICLES)),
    Intent("pets", _p(_PETS), _p(_PETS), subject_kinds=frozenset({"pet"})),
    Intent("preferences", _p(_PREFERENCES), _p(r"(?!)"), frozenset({"preference", "instruction"})),
)
_BY_NAME = {intent.name: intent for intent in INTENTS}

#: A group word in a message names every relation in its group.
RELATION_GROUPS: dict[str, frozenset[str]] = {
    "sibling": frozenset({"sister", "brother"}),
    "siblings": frozenset({"sister", "brother"}),
    "child": frozenset({"son", "daughter", "child"}),
    "parents": frozenset({"mother", "father", "parents"}),
    "grandparents": frozenset({"grandmother", "grandfather"}),
    "partner": frozenset({"wife", "husband", "partner"}),
    "spouse": frozenset({"wife", "husband", "partner"}),
    "pet": frozenset({"dog", "cat", "pet"}),
    # What a parent calls a child in a question ("my boy", "моя девочка"). Question-side
    # only: as relation words they would turn "a girl at work" into the user's daughter.
    "boy": frozenset({"son", "child"}),
    "lad": frozenset({"son", "child"}),
    "girl": frozenset({"daughter", "child"}),
    "little one": frozenset({"son", "daughter", "child"}),
    "kiddo": frozenset({"son", "daughter", "child"}),
    "мальчик": frozenset({"son", "child"}),
    "мальчика": frozenset({"son", "child"}),
    "девочка": frozenset({"daughter", "child"}),
    "девочки": frozenset({"daughter", "child"}),
    "девочку": frozenset({"daughter", "child"}),
}


def intents_of(text: str) -> tuple[Intent, ...]:
    """The intents a message shows, in the order of :data:`INTENTS`."""
    return tuple(intent for intent in INTENTS if intent.ask.search(text))


def intent(name: str) -> Intent:
    return _BY_NAME[name]


def widen_relations(relations: frozenset[str], text: str) -> frozenset[str]:
    """``relations`` plus every relation of a group the message names ("sibling")."""
    out = set(relations)
    lowered = text.lower()
    for group, members in RELATION_GROUPS.items():
        if group in relations or re.search(rf"\b{group}\b", lowered):
            out |= members
    if re.search(r"\bбрат\w* или сестр\w*|\bсиблинг\w*", lowered):
        out |= RELATION_GROUPS["sibling"]
    if _DATING.search(lowered):
        out |= RELATION_GROUPS["partner"]
    return frozenset(out)


#: Asking whom the user is (or was) with names their partner: "who am I dating", "who was I
#: going out with", "с кем я встречаюсь", "с кем я была вместе". Question-side only.
_DATING = re.compile(
    r"\b(?:dating|going out with|go out with|in a relationship|together with|my other half)"
    r"\b|\bвстреча(?:юсь|лась|лся|ешься|емся|лись)\b|\bс кем (?:я )?(?:был[аи]?|живу|жила|жил) "
    r"вместе\b|\bвторая половин\w*"
)
