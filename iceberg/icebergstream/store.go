package icebergstream

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/apache/iceberg-go"
	iceio "github.com/apache/iceberg-go/io"
	s3io "github.com/apache/iceberg-go/io/gocloud/s3"
	"github.com/apache/iceberg-go/table"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
)

// store writes data files create-only where the store offers it.
type store struct {
	props  iceberg.Properties
	aws    *aws.Config // the S3 settings with bounded waits, nil to read them from props
	awsErr error
	once   sync.Once
	s3     *s3.Client
	err    error
}

// putOnce writes data at path unless an object is there already (the
// same runs of the same table, written by an earlier attempt: the same
// rows). On S3 it is a PUT with If-None-Match: *; a local file is written
// aside and linked into its name; on another store it is the table's own
// file IO, which writes an object whole.
func (s *store) putOnce(ctx context.Context, tbl *table.Table, path string, data []byte) error {
	u, err := url.Parse(path)
	if err != nil {
		return err
	}
	switch u.Scheme {
	case "s3", "s3a", "s3n":
		c, err := s.client(ctx)
		if err != nil {
			return err
		}
		_, err = c.PutObject(ctx, &s3.PutObjectInput{
			Bucket:      aws.String(u.Host),
			Key:         aws.String(strings.TrimPrefix(u.Path, "/")),
			Body:        bytes.NewReader(data),
			IfNoneMatch: aws.String("*"),
		})
		if ae, ok := errors.AsType[smithy.APIError](err); ok && ae.ErrorCode() == "PreconditionFailed" {
			return nil // there: written by an earlier attempt
		}
		return err
	case "file", "":
		return linkOnce(filepath.FromSlash(u.Path), data)
	}
	fs, err := tbl.FS(ctx)
	if err != nil {
		return err
	}
	w, ok := fs.(iceio.WriteFileIO)
	if !ok {
		return fmt.Errorf("the store of %s cannot be written", path)
	}
	return w.WriteFile(path, data)
}

// client is the S3 client of the warehouse, made as iceberg-go makes its
// own (the SDK's settings, path-style for a custom endpoint).
func (s *store) client(ctx context.Context) (*s3.Client, error) {
	s.once.Do(func() {
		cfg, err := s.aws, s.awsErr // the bounded settings, when Open made them
		if cfg == nil {
			cfg, err = s3io.ParseAWSConfig(ctx, s.props)
		}
		if err != nil {
			s.err = err
			return
		}
		endpoint := s.props[iceio.S3EndpointURL]
		s.s3 = s3.NewFromConfig(*cfg, func(o *s3.Options) {
			if endpoint != "" {
				o.BaseEndpoint = aws.String(endpoint)
				o.UsePathStyle = true
			}
		})
	})
	return s.s3, s.err
}

// linkOnce writes data to a file beside path, synced, and links it to
// path: path is there whole or not at all, and one already there is kept.
func linkOnce(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	var rnd [8]byte
	rand.Read(rnd[:])
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp-"+hex.EncodeToString(rnd[:]))
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := errors.Join(f.Sync(), f.Close()); err != nil {
		return err
	}
	if err := os.Link(tmp, path); err != nil && !errors.Is(err, os.ErrExist) {
		return err
	}
	return nil
}
