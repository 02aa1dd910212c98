package jsonparse

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hostile are strings that exercise every escaping rule.
var hostile = []string{
	"",
	`plain`,
	`quote " and backslash \ and slash /`,
	"controls \x00\x01\x07\b\f\n\r\t\x1b\x1f\x7f end",
	"invalid utf-8 \xff\xfe and cut \xe2\x82",
	"separators \u2028 and \u2029",
	"html <script>alert('x')</script> && a > b",
	"emoji 👩‍💻🚀 and accents é ü",
	"surrogate-ish \xed\xa0\x80",
	strings.Repeat("long line with \"quotes\" and \\n ", 1000),
}

func TestAppendStringIsValidUTF8(t *testing.T) {
	for _, s := range hostile {
		b := appendString(nil, s)
		assert.True(t, utf8.Valid(b))
		var back string
		require.NoError(t, json.Unmarshal(b, &back))
	}
}
