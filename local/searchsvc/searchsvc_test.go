package searchsvc_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/insightedge/insightedge/local/searchsvc"
	"github.com/insightedge/insightedge/shared/search"
)

func start(t *testing.T) (*searchsvc.Server, *search.Tavily) {
	s, c, _ := startURL(t)
	return s, c
}

func startURL(t *testing.T) (*searchsvc.Server, *search.Tavily, string) {
	t.Helper()
	s := searchsvc.New("local-key")
	ctx, cancel := context.WithCancel(context.Background())
	url, done, err := s.Start(ctx, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); <-done })
	c, err := search.NewTavily(search.TavilyConfig{BaseURL: url, APIKey: "local-key", Timeout: 200 * time.Millisecond,
		MaxRetries: 2, Backoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return s, c, url
}

func TestSearchThroughTheTavilyClient(t *testing.T) {
	_, c := start(t)
	tests := []struct {
		query     string
		wantURL   string // among the results
		wantFirst string // the first result's URL ("" to skip)
		answer    string // a part of the answer ("" for none)
	}{
		{"牛顿力学的发展 历史", "https://en.wikipedia.org/wiki/Philosophi%C3%A6_Naturalis_Principia_Mathematica", "https://zh.wikipedia.org/wiki/经典力学", "1687"},
		{"Mendeleev periodic law 1869 predictions", "https://www.sciencehistory.org/education/scientific-biographies/dmitri-mendeleev/", "https://www.sciencehistory.org/education/scientific-biographies/dmitri-mendeleev/", "Mendeleev"},
		{"光合作用研究史 卡尔文循环", "https://www.nobelprize.org/prizes/chemistry/1961/summary/", "", "卡尔文"},
		{"history of vaccines mRNA recent", "https://www.nobelprize.org/prizes/medicine/2023/summary/", "https://www.nobelprize.org/prizes/medicine/2023/summary/", "Jenner"},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			resp, err := c.Search(context.Background(), search.Request{Query: tt.query, SearchDepth: "basic", MaxResults: 5, IncludeAnswer: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(resp.Results) != 5 {
				t.Fatalf("%d results", len(resp.Results))
			}
			var urls []string
			for _, r := range resp.Results {
				urls = append(urls, r.URL)
				if !strings.HasPrefix(r.URL, "https://") || r.Title == "" || r.Content == "" {
					t.Errorf("result %+v", r)
				}
			}
			if !strings.Contains(strings.Join(urls, " "), tt.wantURL) {
				t.Errorf("results %v lack %s", urls, tt.wantURL)
			}
			if tt.wantFirst != "" && urls[0] != tt.wantFirst {
				t.Errorf("first result %s, want %s", urls[0], tt.wantFirst)
			}
			if !strings.Contains(resp.Answer, tt.answer) {
				t.Errorf("answer %q lacks %q", resp.Answer, tt.answer)
			}
		})
	}
	again, _ := c.Search(context.Background(), search.Request{Query: tests[0].query, MaxResults: 5, IncludeAnswer: true})
	first, _ := c.Search(context.Background(), search.Request{Query: tests[0].query, MaxResults: 5, IncludeAnswer: true})
	if search.Format(again) != search.Format(first) {
		t.Error("the same query gave different results")
	}
}

func TestUnknownTopicIsAnHonestEmptyResult(t *testing.T) {
	_, c := start(t)
	resp, err := c.Search(context.Background(), search.Request{Query: "best pizza toppings in Naples", MaxResults: 5, IncludeAnswer: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Results) != 0 || resp.Answer != "" {
		t.Fatalf("unknown topic answered %+v", resp)
	}
}

func TestFaults(t *testing.T) {
	s, c, url := startURL(t)
	q := search.Request{Query: "history of the periodic table", MaxResults: 3}
	if err := s.SetFault(&searchsvc.Fault{Status: 429, Times: 2}); err != nil {
		t.Fatal(err)
	}
	if resp, err := c.Search(context.Background(), q); err != nil || len(resp.Results) != 3 {
		t.Fatalf("after two 429s: %v %+v", err, resp)
	}
	if err := s.SetFault(&searchsvc.Fault{Status: 503}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Search(context.Background(), q); !errors.Is(err, search.ErrUnavailable) {
		t.Fatalf("persistent 503: %v", err)
	}
	if err := s.SetFault(&searchsvc.Fault{Latency: "1s"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Search(context.Background(), q); !errors.Is(err, search.ErrUnavailable) {
		t.Fatalf("slow: %v", err)
	}
	_ = s.SetFault(nil)
	bad, _ := search.NewTavily(search.TavilyConfig{BaseURL: url, APIKey: "wrong"})
	if _, err := bad.Search(context.Background(), q); !errors.Is(err, search.ErrRejected) {
		t.Fatalf("wrong key: %v", err)
	}
	if got := len(s.Requests()); got < 7 {
		t.Errorf("%d requests recorded", got)
	}
}
