package icebergstream

import (
	"context"
	"io"
	"net"
	"net/http"
	"time"

	s3io "github.com/apache/iceberg-go/io/gocloud/s3"
	"github.com/apache/iceberg-go/utils"
	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
)

// The defaults of the network waits of an export (Config.ConnectTimeout,
// Config.RequestTimeout): a catalog or a store that accepts the
// connection and never answers ends the export with an error naming it,
// not a wait without end.
const (
	DefaultConnectTimeout = 10 * time.Second
	DefaultRequestTimeout = 2 * time.Minute
)

// bounded is the transport of a REST catalog: a connection made within
// connect (TLS too), the answer's first byte within request, and the
// whole request, its body read, within request.
func bounded(connect, request time.Duration) http.RoundTripper {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DialContext = (&net.Dialer{Timeout: connect, KeepAlive: 30 * time.Second}).DialContext
	t.TLSHandshakeTimeout = connect
	t.ResponseHeaderTimeout = request
	return timed{t, request}
}

// timed bounds each request of rt, its body included, by d.
type timed struct {
	rt http.RoundTripper
	d  time.Duration
}

func (t timed) RoundTrip(r *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithTimeout(r.Context(), t.d)
	res, err := t.rt.RoundTrip(r.WithContext(ctx))
	if err != nil {
		cancel()
		return nil, err
	}
	res.Body = cancelOnClose{res.Body, cancel}
	return res, nil
}

type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (c cancelOnClose) Close() error {
	err := c.ReadCloser.Close()
	c.cancel()
	return err
}

// awsConfig is the S3 settings of the warehouse (the SDK's own, from the
// environment and the shared files, as iceberg-go reads them) with every
// network wait bounded: iceberg-go's file IO takes it from the context
// (utils.WithAwsConfig), and the exporter's own S3 client from here.
func awsConfig(ctx context.Context, props map[string]string, connect, request time.Duration) (*aws.Config, error) {
	cfg, err := s3io.ParseAWSConfig(ctx, props)
	if err != nil {
		return nil, err
	}
	c := *cfg
	c.HTTPClient = awshttp.NewBuildableClient().
		WithDialerOptions(func(d *net.Dialer) { d.Timeout = connect }).
		WithTransportOptions(func(t *http.Transport) {
			t.TLSHandshakeTimeout, t.ResponseHeaderTimeout = connect, request
		}).
		WithTimeout(request)
	return &c, nil
}

// withAws is ctx carrying cfg for iceberg-go's S3 file IO.
func withAws(ctx context.Context, cfg *aws.Config) context.Context {
	if cfg == nil {
		return ctx
	}
	return utils.WithAwsConfig(ctx, cfg)
}
