package ssestream

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every path needs the token, by query, header or cookie; without it, or
// with a wrong one, the answer is 401 with nothing of the run.
func TestTokenIsRequiredOnEveryPath(t *testing.T) {
	const token = "Zm9vYmFyYmF6cXV4cXV1eA-_"
	run := readFile(t, runFile)
	srv := httptest.NewServer(NewHandler(recorded(t, run), WithToken(token)))
	defer srv.Close()
	client := srv.Client()
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	do := func(path string, header ...string) (*http.Response, string) {
		t.Helper()
		req, err := http.NewRequest("GET", srv.URL+path, nil)
		require.NoError(t, err)
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		req.Host = req.Header.Get("Host")
		res, err := client.Do(req)
		require.NoError(t, err)
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		require.NoError(t, err)
		return res, string(b)
	}
	paths := []string{"/", "/index.html", "/app.js", "/app.css", "/events", "/summary", "/nothing-here"}
	for _, path := range paths {
		for name, header := range map[string][]string{
			"no token":     nil,
			"wrong bearer": {"Authorization", "Bearer " + token + "x"},
			"wrong cookie": {"Cookie", TokenCookie + "=" + token[:len(token)-1]},
			"not bearer":   {"Authorization", "Basic " + token},
		} {
			res, body := do(path, header...)
			assert.Equal(t, http.StatusUnauthorized, res.StatusCode, "%s, %s", path, name)
			assert.NotContains(t, body, "gpt-6-sol", "nothing of the run")
			assert.NotContains(t, body, token)
			assert.Contains(t, res.Header.Get("Content-Security-Policy"), "default-src 'none'", "the CSP stays")
		}
		res, _ := do(path + "?token=wrong")
		assert.Equal(t, http.StatusUnauthorized, res.StatusCode, "%s with a wrong ?token=", path)

		want := map[string]int{"/nothing-here": http.StatusNotFound, "/index.html": http.StatusMovedPermanently}[path]
		if want == 0 {
			want = http.StatusOK
		}
		res, _ = do(path, "Authorization", "Bearer "+token)
		assert.Equal(t, want, res.StatusCode, "%s with the bearer token", path)
		res, _ = do(path, "authorization", "bearer  "+token)
		assert.Equal(t, want, res.StatusCode, "%s with the bearer token, the scheme in lower case (RFC 7235)", path)
		res, _ = do(path, "Cookie", TokenCookie+"="+cookieOf(t, srv.URL, token))
		assert.Equal(t, want, res.StatusCode, "%s with the cookie", path)
		res, _ = do(path, "Cookie", TokenCookie+"="+token)
		assert.Equal(t, http.StatusUnauthorized, res.StatusCode, "%s: the cookie holds what the token gives, not the token", path)
	}
	for _, path := range []string{"/events", "/summary"} {
		res, body := do(path + "?token=" + url.QueryEscape(token))
		assert.Equal(t, http.StatusOK, res.StatusCode, "a program's request takes ?token= as it is")
		assert.Contains(t, body, "gpt-6-sol")
	}
	res, _ := do("/", "Host", "evil.example")
	assert.Equal(t, http.StatusUnauthorized, res.StatusCode, "another Host: the token guards the run")
	res, _ = do("/summary", "Host", "runs.example.org", "Authorization", "Bearer "+token)
	assert.Equal(t, http.StatusOK, res.StatusCode, "the Host a reverse proxy forwards, with the token")
}

// cookieOf is the cookie a page opened with ?token= gets.
func cookieOf(t *testing.T, base, token string) string {
	t.Helper()
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.Get(base + "/?token=" + url.QueryEscape(token))
	require.NoError(t, err)
	res.Body.Close()
	for _, c := range res.Cookies() {
		if c.Name == TokenCookie {
			return c.Value
		}
	}
	t.Fatal("no cookie")
	return ""
}

// Every token a --token-file can hold opens the page in a browser: a
// cookie cannot carry ';', '"', '\\' or a non-ASCII letter, and Go's cookie
// writer drops them, so the cookie holds a value derived from the token.
func TestTokenOfAnyBytesWorksInABrowser(t *testing.T) {
	for _, token := range []string{"pa;ss", `a"b`, `back\\slash`, "naïve-tökén", "spaces in it", "=,%"} {
		srv := httptest.NewServer(NewHandler(recorded(t, readFile(t, runFile)), WithToken(token)))
		jar := &cookieJar{}
		browser := &http.Client{Jar: jar, Transport: srv.Client().Transport}
		res, err := browser.Get(srv.URL + "/?token=" + url.QueryEscape(token))
		require.NoError(t, err)
		res.Body.Close()
		assert.Equal(t, http.StatusOK, res.StatusCode, "%q: the page, after the redirect", token)
		res, err = browser.Get(srv.URL + "/summary")
		require.NoError(t, err)
		res.Body.Close()
		assert.Equal(t, http.StatusOK, res.StatusCode, "%q: then the cookie alone", token)
		srv.Close()
	}
}

// A page opened with ?token= gets the cookie and a redirect to the same URL
// without the token, so the token does not stay in the address bar.
func TestTokenRedirectDropsItFromTheURL(t *testing.T) {
	const token = "s3cr3t-t0ken"
	srv := httptest.NewServer(NewHandler(recorded(t, readFile(t, runFile)), WithToken(token)))
	defer srv.Close()
	client := srv.Client()
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	for path, want := range map[string]string{
		"/?token=" + token:                   "/",
		"/?a=1&token=" + token + "&b=2":      "/?a=1&b=2",
		"/app.js?token=" + token:             "/app.js",
		"//evil.example/x?token=" + token:    "/evil.example/x",
		"/%2F%2Fevil.example?token=" + token: "/evil.example",
	} {
		res, err := client.Get(srv.URL + path)
		require.NoError(t, err)
		res.Body.Close()
		require.Equal(t, http.StatusSeeOther, res.StatusCode, path)
		assert.Equal(t, want, res.Header.Get("Location"), path)
		assert.NotContains(t, res.Header.Get("Location"), token)
		var c *http.Cookie
		for _, k := range res.Cookies() {
			if k.Name == TokenCookie {
				c = k
			}
		}
		require.NotNil(t, c, "the cookie is set")
		assert.NotContains(t, c.Value, token, "the cookie holds what the token gives, not the token")
		assert.Regexp(t, "^[0-9a-f]{64}$", c.Value)
		assert.True(t, c.HttpOnly)
		assert.Equal(t, http.SameSiteStrictMode, c.SameSite)
		assert.Equal(t, "/", c.Path)
	}
	// Following the redirect as a browser does: the page, by its cookie.
	jar := &cookieJar{}
	browser := &http.Client{Jar: jar, Transport: srv.Client().Transport}
	res, err := browser.Get(srv.URL + "/?token=" + token)
	require.NoError(t, err)
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	assert.Equal(t, http.StatusOK, res.StatusCode)
	assert.Equal(t, "/", res.Request.URL.RequestURI(), "the page is at the URL without the token")
	assert.Contains(t, string(b), "<title>uagent run</title>")
	res, err = browser.Get(srv.URL + "/summary")
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusOK, res.StatusCode, "then the cookie alone")
}

// cookieJar keeps cookies for one host, as a browser does for the page.
type cookieJar struct{ cookies []*http.Cookie }

func (j *cookieJar) SetCookies(_ *url.URL, cs []*http.Cookie) { j.cookies = append(j.cookies, cs...) }
func (j *cookieJar) Cookies(*url.URL) []*http.Cookie          { return j.cookies }

// Without WithToken, or with an empty one, no token is needed.
func TestNoToken(t *testing.T) {
	for _, h := range []*Handler{NewHandler(recorded(t, readFile(t, runFile))), NewHandler(recorded(t, readFile(t, runFile)), WithToken(""))} {
		srv := httptest.NewServer(h)
		res, err := srv.Client().Get(srv.URL + "/summary")
		require.NoError(t, err)
		res.Body.Close()
		assert.Equal(t, http.StatusOK, res.StatusCode)
		assert.False(t, strings.Contains(res.Header.Get("Set-Cookie"), TokenCookie))
		srv.Close()
	}
}
