-- emitted by memo_core.search.filters.compile_filter(..., dialect='postgres')

-- filter: {}
-- params: []
TRUE;

-- filter: {"lang": "en"}
-- params: ["lang", "en"]
(c.metadata ->> ?::text) = ?::text;

-- filter: {"draft": true}
-- params: ["draft", "draft", 1, "draft", 1]
(CASE COALESCE(jsonb_typeof((c.metadata -> ?::text)), 'null') WHEN 'number' THEN ((c.metadata -> ?::text))::numeric = ?::numeric WHEN 'boolean' THEN (((c.metadata -> ?::text))::boolean)::int = ?::numeric WHEN 'null' THEN NULL ELSE FALSE END);

-- filter: {"page": {"$eq": 3}}
-- params: ["page", "page", 3]
(CASE COALESCE(jsonb_typeof((c.metadata -> ?::text)), 'null') WHEN 'number' THEN ((c.metadata -> ?::text))::numeric = ?::numeric WHEN 'null' THEN NULL ELSE FALSE END);

-- filter: {"page": {"$ne": 3}}
-- params: ["page", "page", 3]
(NOT COALESCE((CASE COALESCE(jsonb_typeof((c.metadata -> ?::text)), 'null') WHEN 'number' THEN ((c.metadata -> ?::text))::numeric = ?::numeric WHEN 'null' THEN NULL ELSE FALSE END), FALSE));

-- filter: {"page": {"$eq": null}}
-- params: ["page"]
((c.metadata ->> ?::text) IS NULL);

-- filter: {"page": {"$ne": null}}
-- params: ["page"]
NOT ((c.metadata ->> ?::text) IS NULL);

-- filter: {"page": {"$gt": 2}}
-- params: ["page", "page", 2, "page", 2]
(CASE COALESCE(jsonb_typeof((c.metadata -> ?::text)), 'null') WHEN 'number' THEN ((c.metadata -> ?::text))::numeric > ?::numeric WHEN 'boolean' THEN (((c.metadata -> ?::text))::boolean)::int > ?::numeric WHEN 'string' THEN TRUE WHEN 'array' THEN TRUE WHEN 'object' THEN TRUE WHEN 'null' THEN NULL ELSE FALSE END);

-- filter: {"page": {"$gte": 2.5}}
-- params: ["page", "page", "page", "page", 2.5, "page", 2.5]
(CASE COALESCE(jsonb_typeof((c.metadata -> ?::text)), 'null') WHEN 'number' THEN (CASE WHEN abs(((c.metadata -> ?::text))::numeric) <= 1.7976931348623157e308 THEN ((c.metadata -> ?::text))::float8 ELSE sign(((c.metadata -> ?::text))::numeric) * 'Infinity'::float8 END) >= ?::float8 WHEN 'boolean' THEN (((c.metadata -> ?::text))::boolean)::int::float8 >= ?::float8 WHEN 'string' THEN TRUE WHEN 'array' THEN TRUE WHEN 'object' THEN TRUE WHEN 'null' THEN NULL ELSE FALSE END);

-- filter: {"title": {"$lt": "m"}}
-- params: ["title", "title", "m", "title", "m", "title", "m"]
(CASE COALESCE(jsonb_typeof((c.metadata -> ?::text)), 'null') WHEN 'number' THEN TRUE WHEN 'boolean' THEN TRUE WHEN 'string' THEN (c.metadata ->> ?::text) COLLATE "C" < ?::text WHEN 'array' THEN (SELECT '[' || COALESCE(string_agg(_mf_a._mf_v::text, ',' ORDER BY _mf_a._mf_o), '') || ']' FROM jsonb_array_elements((c.metadata -> ?::text)) WITH ORDINALITY AS _mf_a(_mf_v, _mf_o)) COLLATE "C" < ?::text WHEN 'object' THEN (c.metadata ->> ?::text) COLLATE "C" < ?::text WHEN 'null' THEN NULL ELSE FALSE END);

-- filter: {"page": {"$lte": 9}}
-- params: ["page", "page", 9, "page", 9]
(CASE COALESCE(jsonb_typeof((c.metadata -> ?::text)), 'null') WHEN 'number' THEN ((c.metadata -> ?::text))::numeric <= ?::numeric WHEN 'boolean' THEN (((c.metadata -> ?::text))::boolean)::int <= ?::numeric WHEN 'null' THEN NULL ELSE FALSE END);

-- filter: {"page": {"$gte": 2, "$lte": 5}}
-- params: ["page", "page", 2, "page", 2, "page", "page", 5, "page", 5]
((CASE COALESCE(jsonb_typeof((c.metadata -> ?::text)), 'null') WHEN 'number' THEN ((c.metadata -> ?::text))::numeric >= ?::numeric WHEN 'boolean' THEN (((c.metadata -> ?::text))::boolean)::int >= ?::numeric WHEN 'string' THEN TRUE WHEN 'array' THEN TRUE WHEN 'object' THEN TRUE WHEN 'null' THEN NULL ELSE FALSE END) AND (CASE COALESCE(jsonb_typeof((c.metadata -> ?::text)), 'null') WHEN 'number' THEN ((c.metadata -> ?::text))::numeric <= ?::numeric WHEN 'boolean' THEN (((c.metadata -> ?::text))::boolean)::int <= ?::numeric WHEN 'null' THEN NULL ELSE FALSE END));

-- filter: {"lang": {"$in": ["en", "de", 3]}}
-- params: ["lang", "lang", 3, "lang", ["en", "de"]]
(CASE COALESCE(jsonb_typeof((c.metadata -> ?::text)), 'null') WHEN 'number' THEN ((c.metadata -> ?::text))::numeric = ?::numeric WHEN 'string' THEN (c.metadata ->> ?::text) = ANY(?::text[]) WHEN 'null' THEN NULL ELSE FALSE END);

-- filter: {"lang": {"$in": []}}
-- params: []
FALSE;

-- filter: {"lang": {"$nin": ["en", null]}}
-- params: ["lang", "en"]
(NOT COALESCE((c.metadata ->> ?::text) = ?::text, FALSE));

-- filter: {"lang": {"$nin": []}}
-- params: []
TRUE;

-- filter: {"tags": {"$contains": "legal"}}
-- params: ["tags", "tags", "[\"legal\"]", "tags", "tags", "tags", "tags", "legal"]
(CASE WHEN jsonb_typeof((c.metadata -> ?::text)) = 'array' THEN ((c.metadata -> ?::text) @> ?::jsonb) ELSE strpos((CASE jsonb_typeof((c.metadata -> ?::text)) WHEN 'boolean' THEN (((c.metadata -> ?::text))::boolean)::int::text WHEN 'array' THEN (SELECT '[' || COALESCE(string_agg(_mf_a._mf_v::text, ',' ORDER BY _mf_a._mf_o), '') || ']' FROM jsonb_array_elements((c.metadata -> ?::text)) WITH ORDINALITY AS _mf_a(_mf_v, _mf_o)) ELSE (c.metadata ->> ?::text) END), ?::text) > 0 END);

-- filter: {"tags": {"$contains": 1.5}}
-- params: ["tags", "tags", 1.5, "tags", "tags", "tags", "tags", "1.5"]
(CASE WHEN jsonb_typeof((c.metadata -> ?::text)) = 'array' THEN EXISTS (SELECT 1 FROM jsonb_array_elements((c.metadata -> ?::text)) AS _mf_e(_mf_v) WHERE (CASE COALESCE(jsonb_typeof(_mf_e._mf_v), 'null') WHEN 'number' THEN (CASE WHEN abs((_mf_e._mf_v)::numeric) <= 1.7976931348623157e308 THEN (_mf_e._mf_v)::float8 ELSE sign((_mf_e._mf_v)::numeric) * 'Infinity'::float8 END) = ?::float8 WHEN 'null' THEN NULL ELSE FALSE END)) ELSE strpos((CASE jsonb_typeof((c.metadata -> ?::text)) WHEN 'boolean' THEN (((c.metadata -> ?::text))::boolean)::int::text WHEN 'array' THEN (SELECT '[' || COALESCE(string_agg(_mf_a._mf_v::text, ',' ORDER BY _mf_a._mf_o), '') || ']' FROM jsonb_array_elements((c.metadata -> ?::text)) WITH ORDINALITY AS _mf_a(_mf_v, _mf_o)) ELSE (c.metadata ->> ?::text) END), ?::text) > 0 END);

-- filter: {"tags": {"$any": ["a", "b"]}}
-- params: ["tags", "tags", ["[\"a\"]", "[\"b\"]"], "tags", "tags", ["a", "b"], "tags", ["a", "b"]]
(CASE COALESCE(jsonb_typeof((c.metadata -> ?::text)), 'null') WHEN 'array' THEN (((c.metadata -> ?::text) @> ANY(?::jsonb[]))) WHEN 'object' THEN (EXISTS (SELECT 1 FROM jsonb_path_query((c.metadata -> ?::text), (CASE WHEN jsonb_typeof((c.metadata -> ?::text)) = 'object' THEN '$.*' ELSE 'lax $[*]' END)::jsonpath) AS _mf_e(_mf_v) WHERE (_mf_e._mf_v #>> '{}') = ANY(?::text[]))) WHEN 'null' THEN FALSE ELSE COALESCE((c.metadata ->> ?::text) = ANY(?::text[]), FALSE) END);

-- filter: {"tags": {"$any": []}}
-- params: []
FALSE;

-- filter: {"tags": {"$all": ["a", 1, true]}}
-- params: ["tags", "tags", "[\"a\"]", "tags", ["[1]", "[true]"], "tags", "tags", "a", "tags", "tags", 1, 1]
(CASE COALESCE(jsonb_typeof((c.metadata -> ?::text)), 'null') WHEN 'array' THEN (((c.metadata -> ?::text) @> ?::jsonb) AND ((c.metadata -> ?::text) @> ANY(?::jsonb[]))) WHEN 'object' THEN (EXISTS (SELECT 1 FROM jsonb_path_query((c.metadata -> ?::text), (CASE WHEN jsonb_typeof((c.metadata -> ?::text)) = 'object' THEN '$.*' ELSE 'lax $[*]' END)::jsonpath) AS _mf_e(_mf_v) WHERE (_mf_e._mf_v #>> '{}') = ?::text) AND EXISTS (SELECT 1 FROM jsonb_path_query((c.metadata -> ?::text), (CASE WHEN jsonb_typeof((c.metadata -> ?::text)) = 'object' THEN '$.*' ELSE 'lax $[*]' END)::jsonpath) AS _mf_e(_mf_v) WHERE (CASE COALESCE(jsonb_typeof(_mf_e._mf_v), 'null') WHEN 'number' THEN (_mf_e._mf_v)::numeric = ?::numeric WHEN 'boolean' THEN ((_mf_e._mf_v)::boolean)::int = ?::numeric WHEN 'null' THEN NULL ELSE FALSE END))) WHEN 'null' THEN FALSE ELSE FALSE END);

-- filter: {"tags": {"$all": []}}
-- params: []
TRUE;

-- filter: {"title": {"$text_match": "Intro"}}
-- params: ["title", "title", "title", "title", "Intro"]
(strpos((CASE jsonb_typeof((c.metadata -> ?::text)) WHEN 'boolean' THEN (((c.metadata -> ?::text))::boolean)::int::text WHEN 'array' THEN (SELECT '[' || COALESCE(string_agg(_mf_a._mf_v::text, ',' ORDER BY _mf_a._mf_o), '') || ']' FROM jsonb_array_elements((c.metadata -> ?::text)) WITH ORDINALITY AS _mf_a(_mf_v, _mf_o)) ELSE (c.metadata ->> ?::text) END), ?::text) > 0);

-- filter: {"title": {"$text_match_insensitive": "intro"}}
-- params: ["title", "title", "title", "title", "intro"]
(strpos(lower((CASE jsonb_typeof((c.metadata -> ?::text)) WHEN 'boolean' THEN (((c.metadata -> ?::text))::boolean)::int::text WHEN 'array' THEN (SELECT '[' || COALESCE(string_agg(_mf_a._mf_v::text, ',' ORDER BY _mf_a._mf_o), '') || ']' FROM jsonb_array_elements((c.metadata -> ?::text)) WITH ORDINALITY AS _mf_a(_mf_v, _mf_o)) ELSE (c.metadata ->> ?::text) END) COLLATE "C"), lower(?::text COLLATE "C")) > 0);

-- filter: {"author": {"$exists": true}}
-- params: ["author"]
(jsonb_typeof((c.metadata -> ?::text)) IS NOT NULL);

-- filter: {"author": {"$exists": false}}
-- params: ["author"]
(jsonb_typeof((c.metadata -> ?::text)) IS NULL);

-- filter: {"tags": {"$is_empty": true}}
-- params: ["tags", "tags", "tags"]
(((c.metadata ->> ?::text) IS NULL) OR (c.metadata ->> ?::text) = '' OR (c.metadata -> ?::text) = '[]'::jsonb);

-- filter: {"tags": {"$is_empty": false}}
-- params: ["tags", "tags", "tags"]
(NOT (((c.metadata ->> ?::text) IS NULL) OR (c.metadata ->> ?::text) = '' OR (c.metadata -> ?::text) = '[]'::jsonb));

-- filter: {"$and": [{"lang": "en"}, {"page": {"$gt": 1}}]}
-- params: ["lang", "en", "page", "page", 1, "page", 1]
((c.metadata ->> ?::text) = ?::text AND (CASE COALESCE(jsonb_typeof((c.metadata -> ?::text)), 'null') WHEN 'number' THEN ((c.metadata -> ?::text))::numeric > ?::numeric WHEN 'boolean' THEN (((c.metadata -> ?::text))::boolean)::int > ?::numeric WHEN 'string' THEN TRUE WHEN 'array' THEN TRUE WHEN 'object' THEN TRUE WHEN 'null' THEN NULL ELSE FALSE END));

-- filter: {"$or": [{"lang": "en"}, {"tags": {"$contains": "legal"}}]}
-- params: ["lang", "en", "tags", "tags", "[\"legal\"]", "tags", "tags", "tags", "tags", "legal"]
((c.metadata ->> ?::text) = ?::text OR (CASE WHEN jsonb_typeof((c.metadata -> ?::text)) = 'array' THEN ((c.metadata -> ?::text) @> ?::jsonb) ELSE strpos((CASE jsonb_typeof((c.metadata -> ?::text)) WHEN 'boolean' THEN (((c.metadata -> ?::text))::boolean)::int::text WHEN 'array' THEN (SELECT '[' || COALESCE(string_agg(_mf_a._mf_v::text, ',' ORDER BY _mf_a._mf_o), '') || ']' FROM jsonb_array_elements((c.metadata -> ?::text)) WITH ORDINALITY AS _mf_a(_mf_v, _mf_o)) ELSE (c.metadata ->> ?::text) END), ?::text) > 0 END));

-- filter: {"$not": {"kind": "news"}}
-- params: ["kind", "news"]
(NOT COALESCE((c.metadata ->> ?::text) = ?::text, FALSE));

-- filter: {"$not": {"kind": {"$in": ["news", "blog"]}}}
-- params: ["kind", ["news", "blog"]]
(NOT COALESCE((c.metadata ->> ?::text) = ANY(?::text[]), FALSE));

-- filter: {"$not": {}}
-- params: []
(NOT COALESCE(TRUE, FALSE));

-- filter: {"$or": [{}, {"lang": "en"}]}
-- params: ["lang", "en"]
(TRUE OR (c.metadata ->> ?::text) = ?::text);

-- filter: {"lang": "en", "$not": {"$or": [{"page": 1}, {"draft": false}]}}
-- params: ["lang", "en", "page", "page", 1, "page", 1, "draft", "draft", 0, "draft", 0]
((c.metadata ->> ?::text) = ?::text AND (NOT COALESCE(((CASE COALESCE(jsonb_typeof((c.metadata -> ?::text)), 'null') WHEN 'number' THEN ((c.metadata -> ?::text))::numeric = ?::numeric WHEN 'boolean' THEN (((c.metadata -> ?::text))::boolean)::int = ?::numeric WHEN 'null' THEN NULL ELSE FALSE END) OR (CASE COALESCE(jsonb_typeof((c.metadata -> ?::text)), 'null') WHEN 'number' THEN ((c.metadata -> ?::text))::numeric = ?::numeric WHEN 'boolean' THEN (((c.metadata -> ?::text))::boolean)::int = ?::numeric WHEN 'null' THEN NULL ELSE FALSE END)), FALSE)));
