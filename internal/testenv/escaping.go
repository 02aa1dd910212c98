package testenv

import "strings"

// Escaping are strings that exercise every rule of writing a JSON string
// (quotes, backslashes, controls, invalid UTF-8, U+2028 and U+2029,
// characters an HTML-escaping writer changes, non-ASCII), the long one
// last.
var Escaping = []string{
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
