"""Word lists and patterns, English and Russian, that the capture rules and the gate read.

Patterns run on lower-cased text (``re.IGNORECASE`` where case matters for names).
Each signal has a category (what kind of fact it suggests) and a score (how sure
the rule is that the turn holds something worth keeping). Keep this module data
only: the logic lives in :mod:`memo_core.memory.extract`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

__all__ = [
    "AGAIN",
    "CHANGE_CUE",
    "FAMILY_WORDS",
    "FILLER_WORDS",
    "GENERIC_WORDS",
    "HYPOTHETICAL",
    "MARKER_WORDS",
    "NONCOMMITTAL",
    "OPINION",
    "PLEASANTRY_WORDS",
    "RELATIONS",
    "REL_ALT",
    "REPORTED",
    "SIGNALS",
    "STRANGER",
    "Signal",
    "relation_of",
]


@dataclass(frozen=True)
class Signal:
    """A named pattern: ``category`` it suggests (``""`` = none) and the score it gives."""

    name: str
    pattern: re.Pattern[str]
    category: str
    score: float


def _p(text: str) -> re.Pattern[str]:
    return re.compile(text, re.IGNORECASE | re.UNICODE)


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


_WEEKDAYS_EN = r"monday|tuesday|wednesday|thursday|friday|saturday|sunday"
_WEEKDAYS_RU = (
    r"понедельник\w*|вторник\w*|сред[ауы]|среду|четверг\w*|пятниц\w*|суббот\w*|воскресень\w*"
)

# Content-free words: acknowledgements, greetings, laughter, fillers. A message made
# only of these is small talk; a sentence made only of these carries no fact.
#: Words of greetings, good-nights, thanks, farewells and well-wishes (EN + RU). A short
#: message made only of these and fillers is small talk: "Доброй ночи, до завтра",
#: "Большое спасибо за помощь!", "Have a nice weekend!". No question word and no
#: possessive is here, so "how are my kids doing?" still recalls.
PLEASANTRY_WORDS: frozenset[str] = frozenset(
    _words(
        "a an the to for and too all you your ya y'all very much so lot lots again soon later "
        "see talk chat have nice good great lovely wonderful day days weekend week evening "
        "night nights sleep dreams tomorrow take care bye goodbye thanks thank appreciate it "
        "help helped helpful how are doing going is it's hope well everyone there mate folks "
        "guys dear happy merry new year holidays enjoy rest safe travels luck best wishes "
        "спасибо спс благодарю большое огромное за помощь привет приветик здравствуй "
        "здравствуйте доброе утро добрый день вечер доброй спокойной ночи сладких снов до "
        "завтра встречи скорого свидания пока хорошего хороших хорошей выходных дня вечера "
        "недели как дела ты вы у тебя вас всё все хорошо отлично понял поняла ясно ок окей "
        "ладно супер класс круто пожалуйста удачи береги себя всего всем тебе вам и с "
        "праздником наступающим рад рада "
        # colloquial and clipped forms: "споки", "здарова", "снова привет", "спасибо, это всё",
        # "g'night", "that's all, cheers"
        "это на этом снова опять споки спок спокойки спокиночи ноки здарова здорово здрасте "
        "здрасьте хай салют чао бывай давай связи пока-пока приветики приветос доброго "
        "утречка спасибки спасибочки благодарочка пасиб пасибо сенкс мерси "
        "hiya howdy g'night gn nite night-night ta cheers laters cya that that's is all "
        "morning afternoon hey hi hello again"
    )
)
FILLER_WORDS: frozenset[str] = frozenset(
    _words(
        "thanks thank thx ty you u ok okay k kk cool great nice awesome perfect lol lmao rofl "
        "haha hahaha ha hah hehe heh yes yeah yep yup ya no nope nah sure fine good morning "
        "evening night afternoon hi hello hey heya yo bye goodbye cya see later cheers got it "
        "alright right fair enough wow oh ah hmm hm uh um well sounds that this is so very "
        "much really true indeed makes sense np welcome sorry excellent brilliant amazing "
        "neat sweet lovely noted understood gotcha agreed totally exactly absolutely "
        "definitely ahh ooh omg and a the too all for me will do again just lots what week "
        "ugh meh anyway though gonna run gotta go have day luck happy new year back quick one "
        "soon talk ttyl xd wild crazy insane funny hilarious cute weird interesting nuts "
        "спасибо спс благодарю ок окей ага угу да нет не ладно хорошо понял поняла понятно "
        "ясно ясненько круто класс отлично супер норм нормально ну привет пока доброе утро "
        "день вечер спокойной ночи ха хаха хахаха лол ясн ого вау ох ах эх хм ммм ладненько "
        "договорились принято конечно точно именно верно здорово классно прикольно забавно "
        "всё все ничего так себе вот и а же ли уж бывает жаль увы понятненько оки океюшки "
        "пасиб мерси смешно странно интересно жесть капец мило огромное большое хах ахах "
        "даёшь даешь "
    )
)

# Words that only frame a statement ("Life update:", "Кстати,", "Please remember this:").
MARKER_WORDS: frozenset[str] = frozenset(
    _words(
        "update updates updated life news personal quick fyi btw by the way for record "
        "remember this that please note change of plan changed again decided decision today "
        "correction also one big scratch heads more thing important heads up oh and so anyway "
        "actually well okay ok a couple preferences preference reminder quickly just side "
        "another new info information in fact hey hi hello good great yes yeah no ha haha lol "
        "новости новость кстати запомни пожалуйста важно обновление поправка итак всё все "
        "решили окончательно передумали и ещё еще хочу чтобы ты знал кое что опять перенесли "
        "а ну так вот да нет ладно слушай короче в общем инфа информация на заметку для "
        "справки ха привет "
    )
)

# Query words too common to make a fact relevant on their own.
GENERIC_WORDS: frozenset[str] = frozenset(
    _words(
        "want need like get got make go know think thing things time day days week good new "
        "help tell please can could would should suggest recommend idea ideas anything "
        "something some way write draft give find show remind again best better right next "
        "first last little short хочу нужно надо можно какой какая какие какое что как "
        "посоветуй подскажи помоги скажи дай напиши сделать лучше мне меня мой моя мои "
    )
)


# Relatives, other people and pets: surface forms (EN + RU inflections) -> (canonical, kind).
_RELATION_FORMS: dict[str, tuple[str, ...]] = {
    "mother": _words(
        "mom mum mother mommy mummy mama мама мамы маме маму мамой мать матери мамочка мамуля"
    ),
    "father": _words("dad father daddy papa папа папы папе папу папой отец отца отцу отцом"),
    "parents": _words("parents родители родителей родителям"),
    "sister": _words("sister sis сестра сестры сестре сестру сестрой сестрёнка сестренка"),
    "brother": _words("brother bro брат брата брату братом братишка"),
    "wife": _words("wife жена жены жене жену женой супруга супруги супруге супругу супругой"),
    "husband": _words("husband муж мужа мужу мужем супруг супруга супругу супругом"),
    "partner": _words(
        "partner girlfriend boyfriend fiance fiancee fiancé fiancée spouse партнёр партнер девушка девушки парень парня"
    ),
    "son": _words("son сын сына сыну сыном сынок сынишка"),
    "daughter": _words("daughter дочь дочери дочка дочки дочке дочку дочкой доча дочурка"),
    "child": _words(
        "kid kids child children baby toddler дети детей детьми детях ребёнком ребенком детям ребёнок ребенок ребёнка ребенка малыш малыша"
    ),
    "grandmother": _words(
        "grandma grandmother granny nan nana бабушка бабушки бабушке бабушку бабуля бабули"
    ),
    "grandfather": _words("grandpa grandfather granddad дедушка дедушки дедушке дед деда деду"),
    "aunt": _words("aunt auntie тётя тетя тёти тети тёте тете"),
    "uncle": _words("uncle дядя дяди дяде"),
    "cousin": _words("cousin кузен кузина кузена"),
    "friend": _words("friend bestie buddy друг друга другу подруга подруги подруге подругу"),
    "colleague": _words(
        "colleague coworker co-worker boss manager teammate коллега коллеги коллеге начальник начальника начальница начальницы"
    ),
    "neighbour": _words("neighbour neighbor сосед соседа соседу соседка соседки соседке"),
    "roommate": _words("roommate flatmate housemate"),
    "dog": _words("dog puppy pup собака собаки собаке собаку пёс пес пса псу щенок щенка"),
    "cat": _words("cat kitten kitty кот кота коту кошка кошки кошке кошку котёнок котенок котика"),
    "pet": _words("pet parrot hamster rabbit bunny horse питомец питомца попугай хомяк кролик"),
}
_PETS = frozenset({"dog", "cat", "pet"})

#: surface form -> (canonical relation, "person" | "pet")
RELATIONS: Mapping[str, tuple[str, str]] = MappingProxyType(
    {
        form: (canon, "pet" if canon in _PETS else "person")
        for canon, forms in _RELATION_FORMS.items()
        for form in forms
    }
)

#: Query words that mean "my family" and so match any relative.
FAMILY_WORDS: frozenset[str] = frozenset(
    _words(
        "family relatives relative kin семья семьи семье семью родные родных родственники "
        "родственников "
    )
)
FAMILY_RELATIONS: frozenset[str] = frozenset(
    {
        "mother",
        "father",
        "parents",
        "sister",
        "brother",
        "wife",
        "husband",
        "partner",
        "son",
        "daughter",
        "child",
        "grandmother",
        "grandfather",
        "aunt",
        "uncle",
        "cousin",
    }
)


def relation_of(word: str) -> tuple[str, str] | None:
    """``(canonical, kind)`` for a relation word in any listed form, else None."""
    return RELATIONS.get(word.lower())


REL_ALT = "|".join(sorted((re.escape(f) for f in RELATIONS if " " not in f), key=len, reverse=True))

# -- subject detection (run on the cleaned sentence, original case) ------------------
SUBJECT_EN = re.compile(
    r"^(?i:(?:and|also|but|so|plus)\s+)?(?i:my|our)\s+"
    r"(?i:(?:little|older|younger|big|best|new|old|elder|baby|twin|step|late|line|direct)[\s-]+)?"
    rf"(?P<rel>(?i:{REL_ALT}))(?:\s+(?P<name>[A-Z][\w-]+))?(?P<poss>'s)?\b",
    re.UNICODE,
)
SUBJECT_RU_GEN = re.compile(
    r"^(?i:(?:а|и|ещё|еще|но|вот)\s+)?(?i:у)\s+(?i:(?:моей|моего|моих|нашей|нашего|наших)\s+)?"
    rf"(?P<rel>(?i:{REL_ALT}))(?:\s+(?P<name>[А-ЯЁ][а-яё-]+))?\b",
    re.UNICODE,
)
SUBJECT_RU_NOM = re.compile(
    r"^(?i:(?:а|и|ещё|еще|но|вот)\s+)?(?i:(?:моя|мой|мои|моё|мое|мою|моего|моей|моих|наша|наш|наши|нашу|нашего|нашей)"
    r"\s+)?"
    rf"(?P<rel>(?i:{REL_ALT}))(?:\s+(?P<name>[А-ЯЁ][а-яё-]+))?\b",
    re.UNICODE,
)
#: A stranger or a public figure leading the sentence ("The woman next to me on the train",
#: "A guy at work", "Someone in my class", "Мужик в зале", "У парня в автобусе", "Один певец"):
#: the fact is theirs, never the user's. ``who`` is what the user called them.
STRANGER = _p(
    r"^(?:(?:and|also|but|so|plus|а|и|ещё|еще|но|вот)\s+)?(?:"
    r"(?:the|a|an|this|that|some|one|one of the|another)\s+(?:[\w-]+\s+){0,2}?"
    r"(?P<who>woman|man|guy|girl|boy|lady|bloke|dude|person|stranger|passenger|singer|actor|"
    r"actress|celebrity|customer|waiter|waitress|driver|player|chef|author|writer|"
    r"youtuber|influencer|streamer|footballer|politician|patient|tourist)s?\b|"
    r"(?P<who2>someone|somebody|a friend of (?:a friend|mine))\b|"
    r"(?:у\s+)?(?:(?:од(?:ин|на|ного|ной)|какой-то|какая-то|какого-то|какой-то|некий|некая|"
    r"одного|одной)\s+)?(?:[а-яё-]+\s+)??"
    r"(?P<who3>мужик\w*|мужчин\w*|женщин\w*|парн[яюе]|парень|девушк\w*|девчонк\w*|певец|"
    r"певиц\w*|певца|актёр\w*|актер\w*|актрис\w*|знаком(?:ый|ая|ого|ой|ому)|незнаком\w*|"
    r"кто-то|блогер\w*|пассажир\w*|футболист\w*|бабульк\w*|дядьк\w*|тётк\w*|тетк\w*)(?!\w))"
)
#: The assistant's own words reported back ("you said I should", "ты говорил, что"): a
#: suggestion, not the user's fact.
REPORTED = _p(
    r"^(?:(?:and|but|so|а|и|но)\s+)?(?:you|u)\s+(?:said|say|mentioned|suggested|told me|recommended|"
    r"thought|reckoned|advised)\b|\byour (?:idea|suggestion|advice|recommendation) (?:was|is)\b|"
    r"^(?:(?:а|и|но)\s+)?(?:ты|вы)\s+(?:говорил\w*|сказал\w*|советовал\w*|предлагал\w*|"
    r"предложил\w*|упоминал\w*|рекомендовал\w*|писал\w*)|\bтвоя идея\b|\bтвой совет\b"
)
#: "my wife and I", "мы с мужем": the user is (part of) the subject.
WITH_SELF = _p(r"^\S+\s+(?:\S+\s+)?(?:and i|and me|& i)\b|^мы с\b|^я и\b")
PRONOUN_LEAD = _p(
    r"^(?:and\s+|but\s+|а\s+|и\s+|но\s+)?(?:she|he|her|his|she's|he's|she'd|he'd|"
    r"она|он|её|ее|его|ей|ему)\b"
)
#: Any relation word anywhere (for "mentions", which help retrieval).
RELATION_ANYWHERE = re.compile(rf"\b(?:{REL_ALT})\b", re.IGNORECASE | re.UNICODE)

# -- signals -----------------------------------------------------------------------
_EXPLICIT = (
    r"(?:^|[,.:;!]\s*|\bplease\s+)(?:remember|note)\b|\bremember (?:this|that)\b|keep in mind|"
    r"don'?t forget|do not forget|make a note|note (?:this|that) down|for the record|\bfyi\b|"
    r"save this|write (?:this|that) down|remember forever|never forget|"
    r"запомни|запомнить|запиши|\bучти\b|имей в виду|не забудь|на заметку|для справки|сохрани|"
    r"чтобы ты (?:кое-что |это |)знал|чтобы ты (?:кое-что |это |)знала"
)
#: A supposition, not a fact: "if I won the lottery", "допустим, я перееду".
HYPOTHETICAL = _p(
    r"\b(?:if i (?:were|was|had|got|won|lost|quit|moved|ever)|if we (?:were|had|won|moved)|"
    r"what if|suppose|supposing|say i|imagine|hypothetically|would i|in theory|let'?s say|"
    r"let'?s pretend|were i to)\b|"
    # "If I lived in Crete I'd eat ...": a condition that a would-clause follows
    r"\bif (?:i|we)\b[^.!?]{0,80}?\b(?:i|we)(?:'d| would)\b|"  # bounded: no backtracking run
    r"гипотетическ\w*|если бы|допустим|представ\w+,? что|предположим|а что если"
)
#: A reply that commits to nothing: "let me sleep on it", "I'll mull it over", "подумаю".
NONCOMMITTAL = _p(
    r"\b(?:let me (?:think|sleep on|see|mull)|i'?ll (?:think|mull|sleep on|see)|think it over|"
    r"mull (?:it|this|that) over|not sure|maybe later|we'?ll see|no idea|i don'?t know|dunno|"
    r"get back to you|maybe not|or maybe not|may or may not|might or might not|"
    r"i might,? i might not|(?:not|haven'?t|have not) decided|undecided|give me a (?:day|minute)|"
    r"i'?ll (?:look into|have a look|consider|check with)|look into it)\b|"
    r"подумаю|посмотрим|не знаю|пока не решил\w*|вернусь к этому|а может и нет|может,? и нет|"
    r"может быть,? нет|(?:ещё|еще|пока) не решил\w*|не решил\w*,? может|надо подумать|"
    r"нужно подумать|дай подумать|обдумаю|посоветуюсь|гляну позже|не уверен\w*"
)
#: Hearsay: what someone else says or the news says ("apparently", "говорят", "I read that").
#: Without the user or the user's people in the rest, the fact is nobody's the user has.
HEARSAY = _p(
    r"^(?:\W*(?:and|but|so|oh|а|и|но|кстати)\W+)?(?:apparently|they say|people say|rumou?r has it|"
    r"i (?:read|heard|saw) (?:that|on the news)|on the news|говорят|слышал\w*,? что|"
    r"читал\w*,? что|по новостям|в новостях (?:писали|сказали|говорят))\b"
)
#: A question put without a question mark ("is pollen allergy common in kids", "сколько
#: варить гречку"): what follows asks, it tells nothing.
QUESTION_LEAD = _p(
    r"^(?:\W*(?:and|but|so|ok|okay|also|hey|а|и|но|ну|слушай)\W+)*(?:is|are|does|do|did|can|"
    r"could|should|how|what|why|which|where|when|who|whats|what's|как|что|почему|зачем|сколько|"
    r"где|когда|какой|какая|какие|какое|можно ли|стоит ли|нужно ли|правда ли|чем)\b"
)
#: A request to the assistant ("write", "plan", "дай", "посоветуй"): a task, not a fact.
REQUEST = _p(
    r"^(?:\W*(?:please|pls|hey|ok|okay|so|also|and|random but|fyi|btw|кстати|а|и|слушай)\W+)*"
    r"(?:tell|give|list|plan|pln|pan|write|rewrite|explain|show|find|make|suggest|recommend|"
    r"translate|summari[sz]e|compare|help|describe|calculate|draft|дай|расскажи|составь|напиши|"
    r"объясни|покажи|найди|посоветуй|переведи|сравни|посчитай|придумай|помоги|подскажи|"
    r"подбери|проверь)\b"
)
#: A passing opinion ("I think the budget is too tight", "мне кажется"): only the rules
#: may make it a fact (a preference, a decision), the classifier does not.
OPINION = _p(
    r"^(?:\W*(?:and|but|so|also|и|а|но)\s+)?(?:i (?:think|guess|feel like|suppose|reckon|believe)|"
    r"i'?m (?:not sure|pretty sure)|it (?:seems|looks like)|"
    r"мне кажется|я думаю|по-моему|кажется|похоже)\b"
)
#: Words that say a fact replaces an earlier one ("now", "new", "again", "теперь"): SUPERSEDE
#: may then link facts that share a topic but no word. Not a capture signal on its own.
CHANGE_CUE = _p(
    r"\b(?:now|new|again|anymore|any more|instead|switched|changed|moved|raised|rose|lowered|"
    r"extended|renewed|sold|quit|stopped|gave up|replaced|upgraded|these days|nowadays|"
    r"no longer|no more|went (?:up|down)|up to|down to|from now on|relocated)\b|больше нельзя|"
    r"теперь|снова|опять|больше не\b|уже не\b|вместо|перенес\w*|перенёс\w*|продлил\w*|нов(?:ый|ая|ое|ые)\b|"
    r"смени\w*|поменя\w*|перешл\w*|перешёл|брос(?:ил|ила|или|ить)\b|продал\w*|подорожал\w*|"
    r"сдвину\w*|ныне|сейчас"
)
#: A repeated change ("slipped again", "опять перенесли"): the target is a fact already
#: changed before.
AGAIN = _p(r"\b(?:again|once more|yet again)\b|\bснова\b|\bопять\b|ещё раз|еще раз")
FORGET_REQUEST = _p(
    r"no need to (?:keep|remember|store|save|note)|"
    r"(?:don'?t|do not) (?:remember|store|save|keep|note)(?: (?:this|that|it))?\b|"
    r"(?:^|[,.;:!]\s*)(?:please\s+)?forget (?:this|that|it|about (?:it|this|that))\b|"
    r"you can forget|не (?:нужно |надо )?запомина\w*|не запоминай|не записывай|"
    r"(?:^|[,.;:!]\s*)забудь|можешь (?:это )?забыть"
)
_CORRECTION = (
    r"\bactually\b|\bin fact\b|\bno longer\b|\banymore\b|\bany more\b|\bchanged\b|\bhas changed\b|"
    r"\b(?:moved|shifted|pushed|bumped|switched|changed) (?:from|to|back|it|our|the|my|again)\b|"
    r"\bpostponed\b|\brescheduled\b|\bupdate\b|\bchange of plan\b|\bcorrection\b|\bi meant\b|"
    r"\b(?:raised|lowered|increased|decreased|reduced|cut|upped|bumped)(?: [\w'-]+){0,2}"
    r" (?:to|from)\b|\bwent (?:up|down) to\b|\bslipped\b|\bpushed (?:back|out|to)\b|"
    r"\bchanged to\b|\bnow (?:due|on|at|in|is|costs?|takes?|starts?|ends?)\b|"
    r"\bscratch that\b|\binstead\b|\b(?:is|are|it's|that's|i'm|i am|we're|we are) now\b|"
    r"\bturns out\b|\bi (?:left|quit)\b|\bfrom now on\b|\bstarting (?:today|now|next)\b|"
    r"\b(?:rose|risen|went up|gone up)\b|\bput (?:[\w'-]+ ){0,2}?(?:up|down)\b|\brenewed\b|"
    r"\bextended\b|\b(?:sold|quit|ditched|swapped|traded in) (?:the|my|our|his|her|it|[A-Z]\w*)|"
    r"\bgave up\b|\bhad to (?:quit|stop|give up|drop)\b|\bswitched (?!off\b|on\b)\w+|\bmy new \w+|"
    r"\bthe new one\b|\bno more\b|больше нельзя|"
    # a relationship that ended ends the fact that named the partner
    r"\b(?:broke|broken|split|splitting|breaking) up\b|\bdivorced\b|\bseparated\b|"
    r"расстал(?:ись|ась|ся)\b|развел(?:ись|ась|ся)\b|развёл(?:ся)?\b|"
    r"продлил\w*|продлен\w*|продал\w*|брос(?:ил|ила|или|ить)\b|перешл\w* на|перешёл на|"
    r"перешел на|подорожал\w*|подешевел\w*|подняли|поднял\w*|повысил\w*|снизил\w*|понизил\w*|"
    r"увеличил\w*|уменьшил\w*|вырос\w* до|ушл[аи]\b|уш[её]л\b|"
    r"с этого момента|\bвернул\w* (?:в|на)\b|\bmoved back\b|"
    r"на самом деле|больше не\b|уже не\b|\bтеперь\b|измени\w*|поменя\w*|перенес\w*|перенёс\w*|"
    r"сдвину\w*|смени\w*|передума\w*|\bвместо\b|поправка|\bточнее\b|отмени\w*|оказалось"
)
_DECISION = (
    r"\bdecided\b|\bdecide\b|\b(?:we'?re|we are|i'?m|i am) going with\b|\bgoing with\b|"
    r"\b(?:we|i)(?:'ll| will) (?:use|go with|stick with)\b|\bwe (?:use|are using)\b|\bchose\b|\bchosen\b|\bsettled on\b|"
    r"\bopted for\b|\bpicked\b|\bwent with\b|\bstick(?:ing)? with\b|\bkeep using\b|"
    r"\bthe plan is\b|\bfinal decision\b|\bwill be using\b|\bagreed (?:on|to|that)\b|"
    r"\bwe(?:'re| are) (?:using|switching)\b|"
    r"решил\w*|решено|выбрал\w*|остановил\w* на|будем (?:использовать|делать|брать)|"
    r"договорились|окончательно"
)
_PREFERENCE = (
    r"\b(?:i|we) (?:really |also |just |do |don'?t |do not |kind of |totally )?"
    r"(?:like|love|prefer|enjoy|hate|dislike|adore|can'?t stand)\b|\bmy favou?rite\b|"
    r"\bi'?m (?:a (?:big |huge )?fan|into)\b|\b(?:always|never|usually|normally|typically)\b|"
    r"\btend to\b|\bmostly\b(?!,)|\bmainly\b(?!,)|в основном|чаще всего|как правило|люблю|нравит\w*|нравят\w*|предпочита\w*|ненавижу|обожаю|увлека\w*|обычно|"
    r"\bвсегда\b|\bникогда\b|терпеть не могу|любим\w*|"
    r"\b(?:prefers|likes|loves|hates|dislikes|enjoys|only eats|only drinks|eats only)\b|"
    r"\bi'?m (?:learning|studying|practi[cs]ing|training for)\b|\bthese days\b|"
    r"предпочитает|\bлюбит\b|не любит|обожает|ненавидит|ест только|пьёт только|"
    r"\bя (?:учу|изучаю)\b|\bзанимаюсь\b"
)
_RESPONSE_WORDS = (
    r"\b(?:repl(?:y|ies)|answers?|responses?|respond|summar(?:y|ies|ize|ise)|bullets?|"
    r"emojis?|emoticons?|formatting|format|tone|concise|verbose|brief(?:ly)?|shorter|markdown|"
    r"long-winded|call me|address me|talk to me|write (?:to|for) me|explanations?|spelling|"
    r"in (?:english|russian|british english|american english|plain language))\b|"
    r"ответ\w*|отвечай\w*|\bпиши\b|смайл\w*|эмодзи|списк\w*|кратк\w*|коротк\w*|покороче|"
    r"подробн\w*|вступлени\w*|формат\w*|называй меня|зови меня|обращайся|на ты\b|на вы\b"
)
_IMPERATIVE = (
    r"\b(?:please|no|don'?t|do not|never|always|only|keep|use|avoid|stop|make|"
    r"i (?:like|prefer|want|need|love|hate))\b|"
    r"отвечай|\bпиши\b|называй|\bзови\b|обращайся|используй|\bбез\b|давай|пожалуйста|хочу|"
    r"предпочита\w*|люблю|не люблю"
)
_HEALTH = (
    r"allerg\w*|intoleran\w*|celiac|coeliac|diabet\w*|asthma\w*|epi-?pen|medication|\bmeds\b|"
    r"\bpills?\b|\btablets?\b|\b\d+\s?mg\b|prescri\w*|diagnos\w*|blood pressure|physio\w*|"
    r"injur\w*|sprain\w*|surgery|pregnan\w*|\bvegan\b|vegetarian|pescatarian|gluten|lactose|"
    r"\bkosher\b|\bhalal\b|\bdiet\b|(?:don'?t|do not|can'?t|cannot|never) eat\b|migraine\w*|"
    r"\badhd\b|insulin|my (?:left |right )?(?:knee|back|shoulder|hip|ankle|wrist|heart)\b|"
    r"doctor (?:said|says|told)|\bsober\b|(?:don'?t|do not) drink\b|"
    r"аллерг\w*|непереносим\w*|целиак\w*|диабет\w*|астм\w*|таблетк\w*|лекарств\w*|"
    r"\b\d+\s?мг\b|давлени\w*|диагноз\w*|болезн\w*|беременн\w*|веган\w*|вегетари\w*|"
    r"глютен\w*|лактоз\w*|не ем\b|не пью\b|\bдиет\w*|колен\w*|травм\w*|физиотерап\w*|"
    r"операци\w*|мигрен\w*|врач сказал|инсулин\w*|"
    # restrictions and conditions
    r"(?:can'?t|cannot|shouldn'?t|mustn'?t|not allowed to|doctor says no) (?:have|eat|drink|take)\b|"
    r"\bcaffeine\b|decaf|hypertension|cholesterol|anemi\w*|thyroid|epilep\w*|arthritis|"
    r"colou?r-?blind\w*|hearing aid|\bdeaf\b|tinnitus|eczema|celiac|crohn|ibs\b|"
    r"нельзя (?:есть|пить|мне)|запретил\w*|не могу (?:есть|пить)|кофеин\w*|гипертони\w*|"
    r"холестерин\w*|анеми\w*|щитовид\w*|эпилеп\w*|артрит\w*|дальтони\w*|слуховой|"
    r"экзем\w*|гастрит\w*|язв\w*|"
    r"cut(?:ting)? (?:down on|back on|out)\b|\blow-carb\b|\bketo\b|on a diet|lose weight|"
    r"expecting (?:a baby|twins|triplets|our first|a boy|a girl)|\bpregnan\w*|"
    r"стараюсь (?:не есть|меньше)|отказал\w* от|\bхудею\b|на диете|без сахара|ждём ребёнка|"
    r"ждем ребенка|ждём двойню|ждем двойню|\bsmok\w*|\bvap(?:e|ing)\b|\bnicotine\b|"
    r"\bкур(?:ю|ить|ение|ил)\b|бросил\w* курить|никотин\w*|вейп\w*"
)
_IDENTITY = (
    r"\bmy name(?:'s| is)\b|\bi'?m called\b|\bcall me\b|\bcalls me\b|\bmy (?:first |last |full )?"
    r"name\b|\bmy birthday\b|\bmy b-?day\b|\bi was born\b|\bborn (?:on|in)\b|\bturning \d{1,3}\b|"
    r"\bi'?m \d{1,3}(?: years old)?\b|\bi live\b|\bi'?m living in\b|\b(?:i|we) (?:just )?moved to\b|"
    r"\brelocated to\b|\b(?:i|we)(?:'ve| have)? relocated\b|\bi'?m (?:originally )?from\b|\bi'?m based in\b|\bmy (?:home|address|"
    r"hometown)\b|\bbirthday\b|\bwe (?:adopted|have|got) (?:a|an|two) (?:dog|cat|puppy|kitten|"
    r"baby|son|daughter)\b|\bintroducing my\b|\bi (?:work|am working) (?:as|at|for)\b|\bmy job\b|"
    r"\b(?:shoe|clothing|dress|shirt|ring|pants|jeans) size\b|\bi wear (?:a )?size\b|"
    r"\bmy (?:wife|husband|partner|spouse|son|daughter|kids|children|dog|cat|puppy|kitten)"
    r"(?: [a-z]+)?(?:'s)? (?:is|are|name|called|turns|turned|was born)\b|"
    r"\bi'?m (?:now |currently )?an? (?:\w+ ){0,2}(?:engineer|developer|designer|teacher|nurse|"
    r"doctor|lawyer|accountant|student|manager|writer|architect|chef|programmer|scientist|"
    r"researcher|analyst|consultant)\b|"
    r"меня зовут|мо[её] имя|зови меня|называй меня|день рождения|днюх\w*|я родил\w*|"
    r"мне \d{1,3} (?:лет|год)|исполни\w* \w+|я живу|живу в|живу на|переехал\w* (?:в|на)|"
    r"переезжа\w* (?:в|на)|\bя из\b|я родом|мой адрес|у (?:меня|нас) (?:есть )?"
    r"(?:жена|муж|сын|дочь|дочка|дети|ребён\w*|ребен\w*|собака|кот|кошка|пёс|пес)\b|"
    r"размер\w* (?:обуви|одежды|ноги)|\d{2}-?й размер|размер обуви|работаю (?:в|на) |"
    r"работаю \w+(?:ом|ем|ой)\b|по профессии|работаю удал\w*|работаю из\b|"
    r"\bwork (?:remotely|from home|from the office)\b|\bюбиле\w*|\banniversary\b|\bi'?m an? (?:\w+ )?(?:engineer|developer|designer|"
    r"teacher|nurse|doctor|lawyer|accountant|student|manager|writer|architect|chef|"
    r"programmer|scientist|researcher)\b"
)
_PLAN_STRONG = (
    r"\bdue\b|\bdeadline\b|\bappointment\b|\bbooked\b|\bsigned up\b|\bregistered\b|\benrolled\b|"
    r"\bscheduled\b|\bexpires?\b|\bexpiry\b|\brenew\w*|\bsubmit\w*|\b(?:i|we)(?:'ll| will)\b|"
    r"\b(?:i'?m|we'?re|i am|we are) (?:going to|planning|flying|travell?ing|leaving|moving)\b|"
    r"\bplan(?:ning)? to\b|\bthinking (?:of|about)\b|\bflying\b|\bfly to\b|"
    r"\bсрок\w*|дедлайн\w*|(?:нужно|надо) сдать|\bсдать\b|собираюсь|собираемся|планиру\w*|"
    r"\bлетим\b|\bлечу\b|\bедем\b|\bпоедем\b|\bпоеду\b|билеты? (?:уже )?куплен\w*|купили билет\w*|"
    r"записал\w* (?:на|к)|запланирова\w*"
)
_PLAN_NOUN = (
    r"\bmeeting\b|\b1:1\b|\bone-on-one\b|\binterview\b|\bflight\b|\btrip\b|\bvacation\b|"
    r"\bholiday\b|\bexam\b|\bmarathon\b|\brace\b|\bwedding\b|\bconference\b|\bparty\b|"
    r"\bвстреч\w*|созвон\w*|собеседован\w*|\bрейс\w*|поездк\w*|отпуск\w*|путешеств\w*|"
    r"экзамен\w*|марафон\w*|свадьб\w*|конференц\w*|диплом\w*|праздник\w*"
)
_ROUTINE = (
    rf"\bevery (?:day|morning|evening|night|week|month|weekend|{_WEEKDAYS_EN})\b|"
    rf"\beach (?:week|day|morning)\b|\bweekly\b|\bdaily\b|\bmonthly\b|\b(?:{_WEEKDAYS_EN})s\b|"
    r"\b\d+ (?:days|times) a (?:week|month)\b|\b(?:five|four|three|two|six) (?:days|times) a week\b|"
    r"\bonce a (?:week|month|year)\b|\btwice a\b|"
    r"каждое утро|каждый (?:день|вечер|понедельник|вторник|четверг)|каждую (?:неделю|среду|"
    r"пятницу|субботу)|\bкаждые\b|по (?:понедельникам|вторникам|средам|четвергам|пятницам|"
    r"субботам|воскресеньям|выходным|будням)|раз в (?:неделю|месяц|год|день)|еженедельн\w*|"
    r"ежедневн\w*"
)
_POSSESSION = (
    r"^(?:my|our) (?:[\w:'-]+ ){0,4}?(?:is|are|was|were|runs|run|uses|use|has|have|costs|lives|"
    r"works|expires|starts|ends|opens|closes|takes|needs|belongs|sits|stays)\b|"
    r"^(?:the|a) (?:[\w:'-]+ ){0,4}?(?:is|are) (?:with|in|at|on|under|behind)\b|"
    r"\b(?:i|we) (?:have|own|'ve got|got) (?:a|an|two|three|\d+)\b|"
    r"^(?:у меня|у нас)\b|^(?:мой|моя|моё|мое|мои|наш|наша|наше|наши)\s|"
    r"\b(?:беру|ношу|использую|пользуюсь|вожу|езжу)\b|"
    # a stored detail: "the wifi password is pinecone42", "код от домофона 4512"
    r"\b(?:password|passcode|pin|code|combination|account number|address|locker)\b.*\b\w*\d\w*\b|"
    r"^(?:the|my|our) (?:[\w:'-]+ ){0,5}?(?:is|are) (?:[\w:'-]+ ){0,3}?\w*\d\w*\b|"
    r"(?:пароль|код|пин|номер|адрес)\w*\b.*\d|"
    r"^(?!it\b|that\b|this\b|there\b|what\b)\w+ (?:\w+ ){0,3}?(?:is|are|costs?) "
    r"(?:[\w.-]+ ){0,3}?\w*\d"
)
_FIRST_PERSON = (
    r"^(?:i|i'm|i've|i'd|i'll|we|we're|we've|my|our)\b|^(?:я|мы|мне|нам|у меня|у нас)\b|"
    r"^(?:сейчас|теперь) (?:я |мы )?\w+|^(?:[а-яё]+ )?[а-яё]{2,}(?:аю|яю|ую|ею)\b"
)
_EVENT = (
    r"\b(?:yesterday|last (?:night|week|weekend|month)|this morning|went|watched|played|visited)\b|"
    r"\bвчера\b|на прошлой неделе|смотрел\w*|ходил\w*|играл\w*"
)

#: "I'm colorblind", "Я левша": a one-word self-description is a durable trait, unless the
#: word is a passing state ("I'm tired", "я дома").
TRAIT = _p(
    r"^(?:i'?m|i am|я)\s+(?:(?:a|an|totally|completely|also|actually|kind of)\s+)?"
    r"(?P<word>[\w-]{3,})\s*(?:[,.!;(]|$|\s(?:and|but|so|if|by|если|так что|и)\b)"
)
PASSING_STATES: frozenset[str] = frozenset(
    _words(
        "tired busy hungry thirsty happy sad fine okay good great sorry sure back home here "
        "late early ready excited nervous stressed bored done free off confused lost curious "
        "glad sick ill awake asleep exhausted angry upset annoyed worried scared cold hot "
        "full broke sleepy alright afraid away leaving going coming working running listening "
        "serious kidding joking out in new устал устала занят занята рад рада голоден голодна "
        "дома тут здесь готов готова свободен свободна болен больна согласен согласна один "
        "одна понял поняла уверен уверена против за занят занята "
    )
)

#: Capture signals, strongest first. ``plan_noun`` counts only with a date or "I".
SIGNALS: tuple[Signal, ...] = (
    Signal("explicit", _p(_EXPLICIT), "", 1.0),
    Signal("health", _p(_HEALTH), "health", 0.9),
    Signal("identity", _p(_IDENTITY), "identity", 0.85),
    Signal("decision", _p(_DECISION), "decision", 0.8),
    Signal("correction", _p(_CORRECTION), "", 0.75),
    Signal("routine", _p(_ROUTINE), "routine", 0.7),
    Signal("preference", _p(_PREFERENCE), "preference", 0.7),
    Signal("plan", _p(_PLAN_STRONG), "plan", 0.6),
    Signal("plan_noun", _p(_PLAN_NOUN), "plan", 0.5),
    Signal("possession", _p(_POSSESSION), "fact", 0.6),
    Signal("first_person", _p(_FIRST_PERSON), "fact", 0.45),
    Signal("event", _p(_EVENT), "event", 0.4),
)
RESPONSE_WORDS = _p(_RESPONSE_WORDS)
#: Score of the computed "instruction" signal (reply words + an imperative or preference).
INSTRUCTION_SCORE = 0.85
IMPERATIVE = _p(_IMPERATIVE)

#: Which category wins when a sentence shows several.
CATEGORY_PRIORITY: tuple[str, ...] = (
    "health",
    "identity",
    "instruction",
    "decision",
    "plan",
    "routine",
    "preference",
    "fact",
    "event",
)

# -- slots: attributes with one current value per subject (same key -> SUPERSEDE) -----
SLOTS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "name",
        _p(
            r"\bmy name(?:'s| is)\b|\bi'?m called\b|\beveryone calls me\b|\bcall me\b|"
            r"меня зовут|мо[её] имя|зови меня|называй меня"
        ),
    ),
    (
        "birthday",
        _p(
            r"\bmy (?:own )?(?:birthday|b-?day)\b|\bi was born\b|мой день рождения|"
            r"\bi'?ll be \d+\b|\bi turn \d+|\bi'?m turning \d+|"
            r"мне (?:самому |самой )?(?:\w+ ){0,3}?(?:будет|исполнится) \d+|"
            r"у меня день рождения|\bя родил\w*|^родил\w* \d"
        ),
    ),
    (
        "residence",
        _p(
            r"\b(?:i|we) (?:now )?live\b|\bi'?m living in\b|\b(?:i|we) (?:just )?moved to\b|"
            r"\brelocated to\b|\b(?:i|we)(?:'ve| have)? (?:relocated|moved) again\b|\bi'?m based in\b|\bmy (?:home|address) is\b|"
            r"\bя (?:теперь |сейчас )?живу\b|^живу\b|переехал\w* (?:в|на)\b|"
            r"мой адрес|живём в|живем в|переезд\w*[^.]*?\s(?:в|на)\s+\w|"
            r"теперь (?:мы|я) (?:живём |живем |живу )?в\s+\w|\b(?:i|we) moved back to\b|вернул\w* (?:в|на) [А-ЯЁ]"
        ),
    ),
    (
        "diet",
        _p(
            r"\b(?:vegan|vegetarian|pescatarian)\b|\bkosher\b|\bhalal\b|"
            r"(?:don'?t|do not|never) eat (?:meat|fish|pork|beef)|"
            r"веган\w*|вегетариан\w*|пескетариан\w*|не ем (?:мяс\w*|рыб\w*|свинин\w*)"
        ),
    ),
    ("shoe_size", _p(r"\bshoe size\b|\bsize \d+ shoes\b|размер\w* обуви|\d{2}-?й размер")),
)
ALLERGY = _p(
    r"allergic to (?:\w+ ){0,2}?(?P<en>[a-z][\w-]+)|(?P<en2>[a-z][\w-]+) allergy|"
    r"аллерги\w* на (?P<ru>[а-яё-]+)"
)
