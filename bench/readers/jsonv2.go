//go:build goexperiment.jsonv2

package main

import (
	jsonv2 "encoding/json/v2"
	"io"
)

// With GOEXPERIMENT=jsonv2, the standard library's encoding/json/v2 too.
func init() {
	readers = append(readers, reader{"encoding/json/v2 (per line)", func(r io.Reader, sum func(any)) (int, error) {
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
	}})
}
