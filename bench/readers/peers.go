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
	)
}
