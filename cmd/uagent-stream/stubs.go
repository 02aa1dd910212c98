package main

import "errors"

func cmdRun(e env, args []string) error    { return errors.New("run: not built yet") }
func cmdSchema(e env, args []string) error { return errors.New("schema: not built yet") }
