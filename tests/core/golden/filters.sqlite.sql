-- emitted by memo_core.search.filters.compile_filter(..., dialect='sqlite')

-- filter: {}
-- params: []
1;

-- filter: {"lang": "en"}
-- params: ["$.\"lang\"", "en"]
(json_extract(c.metadata, ?) = ?);

-- filter: {"draft": true}
-- params: ["$.\"draft\"", 1]
(json_extract(c.metadata, ?) = ?);

-- filter: {"page": {"$eq": 3}}
-- params: ["$.\"page\"", 3]
(json_extract(c.metadata, ?) = ?);

-- filter: {"page": {"$ne": 3}}
-- params: ["$.\"page\"", 3]
(json_extract(c.metadata, ?) IS NOT ?);

-- filter: {"page": {"$eq": null}}
-- params: ["$.\"page\""]
(json_extract(c.metadata, ?) IS NULL);

-- filter: {"page": {"$ne": null}}
-- params: ["$.\"page\""]
(json_extract(c.metadata, ?) IS NOT NULL);

-- filter: {"page": {"$gt": 2}}
-- params: ["$.\"page\"", 2]
(json_extract(c.metadata, ?) > ?);

-- filter: {"page": {"$gte": 2.5}}
-- params: ["$.\"page\"", 2.5]
(json_extract(c.metadata, ?) >= ?);

-- filter: {"title": {"$lt": "m"}}
-- params: ["$.\"title\"", "m"]
(json_extract(c.metadata, ?) < ?);

-- filter: {"page": {"$lte": 9}}
-- params: ["$.\"page\"", 9]
(json_extract(c.metadata, ?) <= ?);

-- filter: {"page": {"$gte": 2, "$lte": 5}}
-- params: ["$.\"page\"", 2, "$.\"page\"", 5]
((json_extract(c.metadata, ?) >= ?) AND (json_extract(c.metadata, ?) <= ?));

-- filter: {"lang": {"$in": ["en", "de", 3]}}
-- params: ["$.\"lang\"", "en", "de", 3]
(json_extract(c.metadata, ?) IN (?, ?, ?));

-- filter: {"lang": {"$in": []}}
-- params: []
(0);

-- filter: {"lang": {"$nin": ["en", null]}}
-- params: ["$.\"lang\"", "en", null]
(coalesce(json_extract(c.metadata, ?) NOT IN (?, ?), 1));

-- filter: {"lang": {"$nin": []}}
-- params: []
(1);

-- filter: {"tags": {"$contains": "legal"}}
-- params: ["$.\"tags\"", "$.\"tags\"", "legal", "$.\"tags\"", "legal"]
(CASE json_type(c.metadata, ?) WHEN 'array' THEN EXISTS (SELECT 1 FROM json_each(c.metadata, ?) WHERE value = ?) ELSE instr(json_extract(c.metadata, ?), ?) > 0 END);

-- filter: {"tags": {"$contains": 1.5}}
-- params: ["$.\"tags\"", "$.\"tags\"", 1.5, "$.\"tags\"", 1.5]
(CASE json_type(c.metadata, ?) WHEN 'array' THEN EXISTS (SELECT 1 FROM json_each(c.metadata, ?) WHERE value = ?) ELSE instr(json_extract(c.metadata, ?), ?) > 0 END);

-- filter: {"tags": {"$any": ["a", "b"]}}
-- params: ["$.\"tags\"", "a", "b"]
((SELECT count(DISTINCT value) FROM json_each(c.metadata, ?) WHERE value IN (?, ?)) > 0);

-- filter: {"tags": {"$any": []}}
-- params: []
(0);

-- filter: {"tags": {"$all": ["a", 1, true]}}
-- params: ["$.\"tags\"", "a", 1, 1, 2]
((SELECT count(DISTINCT value) FROM json_each(c.metadata, ?) WHERE value IN (?, ?, ?)) = ?);

-- filter: {"tags": {"$all": []}}
-- params: []
(1);

-- filter: {"title": {"$text_match": "Intro"}}
-- params: ["$.\"title\"", "Intro"]
(instr(json_extract(c.metadata, ?), ?) > 0);

-- filter: {"title": {"$text_match_insensitive": "intro"}}
-- params: ["$.\"title\"", "intro"]
(instr(lower(json_extract(c.metadata, ?)), lower(?)) > 0);

-- filter: {"author": {"$exists": true}}
-- params: ["$.\"author\""]
(json_type(c.metadata, ?) IS NOT NULL);

-- filter: {"author": {"$exists": false}}
-- params: ["$.\"author\""]
(json_type(c.metadata, ?) IS NULL);

-- filter: {"tags": {"$is_empty": true}}
-- params: ["$.\"tags\"", "$.\"tags\"", "$.\"tags\"", "$.\"tags\""]
((coalesce(json_type(c.metadata, ?), 'null') = 'null' OR json_extract(c.metadata, ?) = '' OR (json_type(c.metadata, ?) = 'array' AND json_array_length(c.metadata, ?) = 0)));

-- filter: {"tags": {"$is_empty": false}}
-- params: ["$.\"tags\"", "$.\"tags\"", "$.\"tags\"", "$.\"tags\""]
(NOT (coalesce(json_type(c.metadata, ?), 'null') = 'null' OR json_extract(c.metadata, ?) = '' OR (json_type(c.metadata, ?) = 'array' AND json_array_length(c.metadata, ?) = 0)));

-- filter: {"$and": [{"lang": "en"}, {"page": {"$gt": 1}}]}
-- params: ["$.\"lang\"", "en", "$.\"page\"", 1]
((json_extract(c.metadata, ?) = ?) AND (json_extract(c.metadata, ?) > ?));

-- filter: {"$or": [{"lang": "en"}, {"tags": {"$contains": "legal"}}]}
-- params: ["$.\"lang\"", "en", "$.\"tags\"", "$.\"tags\"", "legal", "$.\"tags\"", "legal"]
((json_extract(c.metadata, ?) = ?) OR (CASE json_type(c.metadata, ?) WHEN 'array' THEN EXISTS (SELECT 1 FROM json_each(c.metadata, ?) WHERE value = ?) ELSE instr(json_extract(c.metadata, ?), ?) > 0 END));

-- filter: {"$not": {"kind": "news"}}
-- params: ["$.\"kind\"", "news"]
(NOT coalesce((json_extract(c.metadata, ?) = ?), 0));

-- filter: {"$not": {"kind": {"$in": ["news", "blog"]}}}
-- params: ["$.\"kind\"", "news", "blog"]
(NOT coalesce((json_extract(c.metadata, ?) IN (?, ?)), 0));

-- filter: {"$not": {}}
-- params: []
(NOT coalesce(1, 0));

-- filter: {"$or": [{}, {"lang": "en"}]}
-- params: ["$.\"lang\"", "en"]
(1 OR (json_extract(c.metadata, ?) = ?));

-- filter: {"lang": "en", "$not": {"$or": [{"page": 1}, {"draft": false}]}}
-- params: ["$.\"lang\"", "en", "$.\"page\"", 1, "$.\"draft\"", 0]
((json_extract(c.metadata, ?) = ?) AND (NOT coalesce(((json_extract(c.metadata, ?) = ?) OR (json_extract(c.metadata, ?) = ?)), 0)));
