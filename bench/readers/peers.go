package main

import (
	"io"

	"github.com/bytedance/sonic"
	jsonv2 "github.com/go-json-experiment/json"
)

func init() {
	readers = append(readers,
		reader{"go-json-experiment (per line)", func(r io.Reader, sum func(any)) (int, error) {
			return scanLines(r, func(b []byte) error {
				var l Line
				if err := jsonv2.Unmarshal(b, &l); err != nil {
					return err
				}
				if sum != nil {
					sum(&l)
				}
				return nil
			})
		}},
		reader{"bytedance/sonic (per line)", func(r io.Reader, sum func(any)) (int, error) {
			return scanLines(r, func(b []byte) error {
				var l Line
				if err := sonic.Unmarshal(b, &l); err != nil {
					return err
				}
				if sum != nil {
					sum(&l)
				}
				return nil
			})
		}},
		// Sonic's default keeps strings in the Scanner's buffer (the next
		// line overwrites them) and does not check UTF-8. ConfigStd copies
		// strings and checks UTF-8, as the Decoder does.
		reader{"bytedance/sonic ConfigStd (per line)", func(r io.Reader, sum func(any)) (int, error) {
			return scanLines(r, func(b []byte) error {
				var l Line
				if err := sonic.ConfigStd.Unmarshal(b, &l); err != nil {
					return err
				}
				if sum != nil {
					sum(&l)
				}
				return nil
			})
		}},
	)
}
