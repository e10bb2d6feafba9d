package main

import (
	"context"
	"fmt"
	"net/http"
	"time"
)

// The first-words scenario (issue 29): one client, a model whose first
// token takes firstToken, a router call that costs routerCost (its first
// token, then its JSON a token per tokenPace), answers paced tokenPace a
// token. It measures what the teacher waits for: the first text-delta of
// a direct answer, and the first visible part of a quiz turn (the
// product's tool progress; the AI SDK app has no tools and answers it in
// text).
const (
	firstToken = 300 * time.Millisecond
	routerCost = 600 * time.Millisecond
	tokenPace  = 20 * time.Millisecond
)

// firstWord is one side's first-words measure.
type firstWord struct {
	Side     string
	Answers  int // per kind of turn
	Failed   int
	DeltaP50 time.Duration // a direct answer: request → first text-delta
	PartP50  time.Duration // a direct answer: request → first visible part
	QuizP50  time.Duration // a conversation's first quiz turn: request → first visible part
	NextP50  time.Duration // its second quiz turn: request → first visible part
	QuizText time.Duration // the first quiz turn: request → first text-delta
	FirstErr string
}

// firstWords starts s afresh, sets the mock's delays and sends n direct
// answers, then n conversations of two quiz turns, one at a time, each
// direct answer in a conversation of its own.
func firstWords(ctx context.Context, cfg config, hc *http.Client, mock *mockModel, s side, cpu, n int) (firstWord, error) {
	mock.setPace(0)
	mock.setDelays(0, 0)
	sv, err := spawn(ctx, hc, s, cpu, cfg.WorkDir, "", mock.text)
	if err != nil {
		return firstWord{}, err
	}
	defer sv.stop()
	mock.setPace(tokenPace)
	mock.setDelays(firstToken, routerCost)
	defer mock.setDelays(0, 0)
	fw := firstWord{Side: s.name, Answers: n}
	quizWant := quizFinal
	if s.name == "aisdk" {
		quizWant = mock.text
	}
	send := func(chat, msg, text, want string) (answer, bool) {
		a := askWith(ctx, hc, sv.url, askBody(chat, msg, text), want)
		if a.err != nil {
			fw.Failed++
			if fw.FirstErr == "" {
				fw.FirstErr = a.err.Error()
			}
		}
		return a, a.err == nil
	}
	var deltas, parts, quiz, next, quizText []time.Duration
	run := time.Now().UnixNano()
	for i := range n {
		chat := fmt.Sprintf("fw-%d-%d", run, i)
		if a, ok := send(chat, chat+"-1", "What is photosynthesis?", mock.text); ok {
			deltas, parts = append(deltas, a.firstDelta), append(parts, a.firstPart)
		}
	}
	for i := range n {
		chat := fmt.Sprintf("fw-quiz-%d-%d", run, i)
		if a, ok := send(chat, chat+"-1", quizAsk, quizWant); ok {
			quiz, quizText = append(quiz, a.firstPart), append(quizText, a.firstDelta)
		}
		if a, ok := send(chat, chat+"-2", quizAsk, quizWant); ok {
			next = append(next, a.firstPart)
		}
	}
	fw.DeltaP50, fw.PartP50 = percentile(deltas, 50), percentile(parts, 50)
	fw.QuizP50, fw.NextP50, fw.QuizText = percentile(quiz, 50), percentile(next, 50), percentile(quizText, 50)
	return fw, ctx.Err()
}
