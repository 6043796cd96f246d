import json
import unittest

import _support  # noqa: F401 - puts the source on the path

from toolledger import canonicalize, same_json


class CanonicalJsonTest(unittest.TestCase):
    def test_vectors_shared_with_java_and_typescript_canonicalize_alike(self):
        vectors = json.loads(_support.VECTORS.read_text(encoding="utf-8"))
        self.assertGreaterEqual(len(vectors), 10)
        for v in vectors:
            with self.subTest(v["name"]):
                self.assertEqual(canonicalize(json.loads(v["input"])), v["canonical"])

    def test_key_order_and_one_point_zero_are_the_same_intent_other_values_are_not(self):
        self.assertTrue(same_json(json.loads('{"a":1.0,"b":[true]}'), json.loads('{ "b":[true], "a":1 }')))
        self.assertFalse(same_json({"a": 1}, {"a": "1"}))
        self.assertFalse(same_json({"a": True}, {"a": 1}))

    def test_a_lone_surrogate_or_a_non_finite_number_has_no_canonical_form(self):
        with self.assertRaises(ValueError):
            canonicalize("\ud800")
        with self.assertRaises(ValueError):
            canonicalize(float("nan"))
