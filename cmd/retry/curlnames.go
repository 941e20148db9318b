package main

import (
	"fmt"
	"slices"
	"strings"
)

// curlLongFlags are the long flags of curl's command line, from the Long: names of its
// manual's pages (curl's docs/cmdline-opts, as of curl 8.22), plus --include, the older
// name of --show-headers. retry http names one it does not take as curl's, rather than
// only "unknown flag", so that a script moved from curl says what to change.
var curlLongFlags = strings.Fields(`
	include
	abstract-unix-socket alt-svc anyauth append aws-sigv4 basic ca-native cacert capath cert
	cert-status cert-type ciphers compressed compressed-ssh config connect-timeout connect-to
	continue-at cookie cookie-jar create-dirs create-file-mode crlf crlfile curves data
	data-ascii data-binary data-raw data-urlencode delegation digest disable disable-eprt
	disable-epsv disallow-username-in-url dns-interface dns-ipv4-addr dns-ipv6-addr
	dns-servers doh-cert-status doh-insecure doh-url dump-ca-embed dump-header ech
	egd-file engine etag-compare etag-save expect100-timeout fail fail-early fail-with-body
	false-start follow form form-escape form-string ftp-account ftp-alternative-to-user
	ftp-create-dirs ftp-method ftp-pasv ftp-port ftp-pret ftp-skip-pasv-ip ftp-ssl-ccc
	ftp-ssl-ccc-mode ftp-ssl-control get globoff happy-eyeballs-timeout-ms haproxy-clientip
	haproxy-protocol head header help hostpubmd5 hostpubsha256 hsts http0.9 http1.0 http1.1
	http2 http2-prior-knowledge http3 http3-only httpsig-algo httpsig-headers httpsig-key
	httpsig-keyid ignore-content-length insecure interface ip-tos ipfs-gateway ipv4
	ipv6 json junk-session-cookies keepalive-cnt keepalive-time key key-type knownhosts
	krb libcurl limit-rate list-only local-port location location-trusted login-options
	mail-auth mail-from mail-rcpt mail-rcpt-allowfails manual max-filesize max-redirs
	max-time metalink mptcp negotiate netrc netrc-file netrc-optional next no-alpn
	no-buffer no-clobber no-keepalive no-npn no-progress-meter no-sessionid noproxy
	ntlm ntlm-wb oauth2-bearer out-null output output-dir parallel parallel-immediate
	parallel-max parallel-max-host pass path-as-is pinnedpubkey post301 post302 post303
	preproxy progress-bar proto proto-default proto-redir proxy proxy-anyauth proxy-basic
	proxy-ca-native proxy-cacert proxy-capath proxy-cert proxy-cert-type proxy-ciphers
	proxy-crlfile proxy-digest proxy-header proxy-http2 proxy-http3 proxy-insecure
	proxy-key proxy-key-type proxy-negotiate proxy-ntlm proxy-pass proxy-pinnedpubkey
	proxy-service-name proxy-ssl-allow-beast proxy-ssl-auto-client-cert proxy-tls13-ciphers
	proxy-tlsauthtype proxy-tlspassword proxy-tlsuser proxy-tlsv1 proxy-user proxy1.0
	proxytunnel pubkey quote random-file range rate raw referer remote-header-name
	remote-name remote-name-all remote-time remove-on-error request request-target resolve
	retry retry-all-errors retry-connrefused retry-delay retry-max-time sasl-authzid
	sasl-ir service-name show-error show-headers sigalgs silent skip-existing socks4
	socks4a socks5 socks5-basic socks5-gssapi socks5-gssapi-nec socks5-gssapi-service
	socks5-hostname speed-limit speed-time ssl ssl-allow-beast ssl-auto-client-cert
	ssl-no-revoke ssl-reqd ssl-revoke-best-effort ssl-sessions sslv2 sslv3 stderr
	styled-output suppress-connect-headers tcp-fastopen tcp-nodelay telnet-option
	tftp-blksize tftp-no-options time-cond tls-earlydata tls-max tls13-ciphers tlsauthtype
	tlspassword tlsuser tlsv1 tlsv1.0 tlsv1.1 tlsv1.2 tlsv1.3 tr-encoding trace trace-ascii
	trace-config trace-ids trace-time unix-socket upload-file upload-flags url url-query
	use-ascii user user-agent variable verbose version vlan-priority write-out xattr
`)

// curlShortFlags maps curl's one-letter flags to their long names (the Short: names of the
// same pages).
var curlShortFlags = parsePairs(`
	a=append E=cert K=config C=continue-at c=cookie-jar b=cookie d=data q=disable
	D=dump-header f=fail F=form P=ftp-port G=get g=globoff I=head H=header h=help 0=http1.0
	k=insecure 4=ipv4 6=ipv6 j=junk-session-cookies l=list-only L=location M=manual
	m=max-time n=netrc :=next N=no-buffer o=output Z=parallel #=progress-bar U=proxy-user
	x=proxy p=proxytunnel Q=quote r=range e=referer J=remote-header-name O=remote-name
	R=remote-time X=request S=show-error i=show-headers s=silent Y=speed-limit y=speed-time
	2=sslv2 3=sslv3 t=telnet-option z=time-cond 1=tlsv1 T=upload-file B=use-ascii
	A=user-agent u=user v=verbose V=version w=write-out `)

// curlHints say what to use instead of a curl flag retry http does not take, where there
// is something to say.
var curlHints = map[string]string{
	"data-binary":      "-d sends @FILE's bytes unchanged, as --data-binary does",
	"head":             "use -X HEAD",
	"verbose":          "the decision records on stderr (--log text or json) show each attempt",
	"insecure":         "certificates are always verified",
	"show-headers":     "use -i",
	"remote-name":      "use -o FILE",
	"continue-at":      "a broken download is resumed by itself when the server allows it",
	"fail-with-body":   "the body of a final error status is written by default; -f writes none",
	"write-out":        "the decision records (--log json) carry the status and the times",
	"location-trusted": "-L sends credentials only to the first URL's origin",
}

// parsePairs reads "a=append E=cert ..." into a map.
func parsePairs(s string) map[string]string {
	m := map[string]string{}
	for _, pair := range strings.Fields(s) {
		short, long, _ := strings.Cut(pair, "=")
		m[short] = long
	}
	return m
}

// curlFlagError returns the usage error of a flag retry http does not take that curl has:
// name is a long flag's name, or a shorthand's letter when short. ok is false when curl
// has no such flag.
func curlFlagError(name string, short bool) (err error, ok bool) {
	long, shown := name, "--"+name
	if short {
		if long, ok = curlShortFlags[name]; !ok {
			return nil, false
		}
		shown = fmt.Sprintf("-%s (curl's --%s)", name, long)
	} else if !slices.Contains(curlLongFlags, name) {
		return nil, false
	}
	msg := fmt.Sprintf("%s is a curl flag that retry http does not take", shown)
	if hint, found := curlHints[long]; found {
		msg += ": " + hint
	}
	return fmt.Errorf("%s; the curl flags it takes are listed under \"curl's flags\" in retry http --help", msg), true
}
