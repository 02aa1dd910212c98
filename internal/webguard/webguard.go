// Package webguard is what the module's HTTP servers (serve's page and
// events, the A2A agent) guard their requests with: a bearer token
// compared in constant time, and, without a token, the Host a request
// names, so that a page of another origin cannot reach a server on
// loopback through DNS rebinding; and what changes something, refused
// when a page of another origin sends it or its body is not JSON.
package webguard

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/uagentkit/stream/internal/regular"
)

// Token is a token kept as its SHA-256, compared in constant time (of the
// hashes, so that not even the length leaks). The zero Token, and a nil
// one, accept nothing.
type Token struct {
	sum [32]byte
	set bool
}

// NewToken returns the Token of t, nil for an empty t.
func NewToken(t string) *Token {
	if t == "" {
		return nil
	}
	return &Token{sum: sha256.Sum256([]byte(t)), set: true}
}

// Valid reports whether s is the token.
func (t *Token) Valid(s string) bool {
	if t == nil || !t.set {
		return false
	}
	sum := sha256.Sum256([]byte(s))
	return subtle.ConstantTimeCompare(sum[:], t.sum[:]) == 1
}

// Bearer reports whether r carries the token as "Authorization: Bearer
// TOKEN" (the scheme in any case).
func (t *Token) Bearer(r *http.Request) bool {
	scheme, bt, ok := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	return ok && strings.EqualFold(scheme, "Bearer") && t.Valid(strings.TrimSpace(bt))
}

// LocalHost reports whether the request's Host names the server locally:
// the address it was received on, localhost, or a loopback address, on
// the port it was received on.
func LocalHost(r *http.Request) bool {
	host, port, err := net.SplitHostPort(r.Host)
	if err != nil {
		return false
	}
	local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if local == nil {
		return false
	}
	lhost, lport, err := net.SplitHostPort(local.String())
	if err != nil || port != lport {
		return false
	}
	if host == lhost || strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// Changes guards what changes something (a request that is not GET, HEAD
// or OPTIONS) before its body is read: one sent by a page of another
// origin (net/http's CrossOriginProtection: Sec-Fetch-Site, else Origin
// against Host; a client that is no browser sends neither) is refused
// (403), and so is one whose body is not JSON (415: a browser sends a
// text/plain or form body to another origin without asking first, and
// these servers take JSON only). Every other request goes to next.
func Changes(next http.Handler) http.Handler {
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "forbidden: a request of another origin", http.StatusForbidden)
	}))
	json := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet, http.MethodHead, http.MethodOptions:
		default:
			if !JSON(r) {
				http.Error(w, "unsupported media type: this server takes application/json", http.StatusUnsupportedMediaType)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
	return cop.Handler(json)
}

// JSON reports whether a request's Content-Type is application/json
// (its parameters aside).
func JSON(r *http.Request) bool {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return err == nil && mt == "application/json"
}

// CrossSite reports a request a browser sent for a page of another site
// or origin: Sec-Fetch-Site cross-site or same-site, or, from a browser
// that does not send Sec-Fetch-Site, an Origin that is not the request's
// own (or "null": a sandboxed frame, a file). A client that is no
// browser sends neither, and is not one.
func CrossSite(r *http.Request) bool {
	switch r.Header.Get("Sec-Fetch-Site") {
	case "cross-site", "same-site":
		return true
	case "same-origin", "none":
		return false
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return false
	}
	u, err := url.Parse(origin)
	return err != nil || u.Host == "" || !strings.EqualFold(u.Host, r.Host)
}

// Navigation reports a top-level navigation of a browser (a link
// followed, an address typed): Sec-Fetch-Mode navigate to a document.
// What it answers a page of another site cannot read.
func Navigation(r *http.Request) bool {
	return r.Method == http.MethodGet && r.Header.Get("Sec-Fetch-Mode") == "navigate" &&
		(r.Header.Get("Sec-Fetch-Dest") == "document" || r.Header.Get("Sec-Fetch-Dest") == "")
}

// UsageError is an address a server was asked to listen on that it must
// not: not one, or beyond loopback without being allowed to.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// Access checks the address a server is asked to listen on (a loopback
// one, or any when public) and returns the token the server then
// requires: the first line of the file tokenFile, else the value of the
// environment variable tokenVar, else, beyond loopback, a random one of 192 bits;
// none on loopback. A token is trimmed; one of nothing but white space is
// an error. An address that will not do is a *UsageError.
func Access(addr string, public bool, tokenFile, tokenVar string) (string, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return "", &UsageError{fmt.Sprintf("--addr %q: %v", addr, err)}
	}
	ip := net.ParseIP(host)
	loopback := host == "localhost" || ip != nil && ip.IsLoopback()
	if !public && !loopback {
		return "", &UsageError{fmt.Sprintf("--addr %s is not a loopback address", addr)}
	}
	switch {
	case tokenFile != "":
		b, err := readToken(tokenFile)
		if err != nil {
			return "", fmt.Errorf("--token-file: %w", err)
		}
		first, _, _ := strings.Cut(string(b), "\n")
		if t := strings.TrimSpace(first); t != "" {
			return t, nil
		}
		return "", fmt.Errorf("--token-file %s: the first line is empty", tokenFile)
	case os.Getenv(tokenVar) != "":
		if t := strings.TrimSpace(os.Getenv(tokenVar)); t != "" {
			return t, nil
		}
		return "", fmt.Errorf("$%s holds only white space", tokenVar)
	case loopback:
		return "", nil
	}
	b := make([]byte, 24)
	rand.Read(b) // never fails (crypto/rand)
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// maxTokenFile is the most of a token file read: its first line is the
// token.
const maxTokenFile = 64 << 10

// readToken reads the start of a token file: a regular file only
// (regular.Open: a FIFO would hold the server before it listens), at
// most maxTokenFile bytes.
func readToken(path string) ([]byte, error) {
	f, err := regular.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxTokenFile))
}

// URL is the URL to open of a server listening on a, with path: for an
// unspecified address, the first address of this machine's that is not
// loopback (which LocalHost accepts), and the token, when there is one,
// as ?token=. It is the one line that ever shows the token.
func URL(a net.Addr, path, token string) string {
	host, port, _ := net.SplitHostPort(a.String())
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		if addrs, err := net.InterfaceAddrs(); err == nil {
			for _, ad := range addrs {
				if n, ok := ad.(*net.IPNet); ok && !n.IP.IsLoopback() && n.IP.To4() != nil {
					host = n.IP.String()
					break
				}
			}
		}
	}
	u := "http://" + net.JoinHostPort(host, port) + path
	if token != "" {
		u += "?token=" + url.QueryEscape(token)
	}
	return u
}
