package compute_test

import (
	"encoding/json"
	"math"
	"sort"
	"testing"

	"github.com/insightedge/insightedge/shared/blueprint"
	"github.com/insightedge/insightedge/shared/blueprint/blueprinttest"
	"github.com/insightedge/insightedge/shared/blueprint/compute"
	"github.com/insightedge/insightedge/shared/javaapi/mockdata"
)

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// handData is four students with one submission each, scores out of 50:
// 25, 35, 40 and 50, i.e. 50 %, 70 %, 80 % and 100 %.
func handData() blueprint.DataContext {
	raw := `{"assignmentId":"a1","title":"Quiz","submissions":[
	 {"studentId":"s1","studentName":"A","score":25,"maxScore":50,"skills":{"grammar":40,"vocabulary":60,"reading":70,"writing":50}},
	 {"studentId":"s2","studentName":"B","score":35,"maxScore":50,"skills":{"grammar":60,"vocabulary":80,"reading":70,"writing":70}},
	 {"studentId":"s3","studentName":"C","score":40,"maxScore":50},
	 {"studentId":"s4","studentName":"D","score":50,"maxScore":50}]}`
	return blueprint.DataContext{"subs": json.RawMessage(raw)}
}

// TestHandComputed checks each operation against values worked out by hand
// for handData.
func TestHandComputed(t *testing.T) {
	subs, err := compute.Submissions(handData()["subs"])
	if err != nil {
		t.Fatal(err)
	}
	s, _ := compute.Node(blueprint.ComputeNode{ID: "s", Op: blueprint.OpStats, Source: "subs"}, subs)
	st := s.(compute.Stats)
	// mean (50+70+80+100)/4 = 75; median (70+80)/2 = 75;
	// population SD sqrt((25²+5²+5²+25²)/4) = sqrt(325);
	// nearest rank: p25 → 1st value, p75 → 3rd, p90 → ceil(3.6) = 4th.
	want := compute.Stats{Metric: "percent", Per: "student", Count: 4, Mean: 75, Median: 75, StdDev: math.Sqrt(325),
		Min: 50, Max: 100, P25: 50, P75: 80, P90: 100, PassMark: 60, PassCount: 3, PassRate: 0.75}
	if !statsNear(st, want) {
		t.Errorf("stats\n got %+v\nwant %+v", st, want)
	}

	d, _ := compute.Node(blueprint.ComputeNode{ID: "d", Op: blueprint.OpDistribution, Source: "subs", Bins: []float64{0, 60, 80, 100}}, subs)
	dist := d.(compute.Distribution)
	counts := []int{1, 1, 2} // 50 | 70 | 80 and 100 (the last bin includes 100)
	labels := []string{"0–59", "60–79", "80–100"}
	for i, b := range dist.Bins {
		if b.Count != counts[i] || b.Label != labels[i] || !near(b.Share, float64(counts[i])/4) {
			t.Errorf("bin %d = %+v, want count %d label %s", i, b, counts[i], labels[i])
		}
	}

	r, _ := compute.Node(blueprint.ComputeNode{ID: "r", Op: blueprint.OpRanking, Source: "subs", Limit: 2}, subs)
	rk := r.(compute.Ranking)
	if len(rk.Top) != 2 || rk.Top[0].StudentID != "s4" || rk.Top[1].StudentID != "s3" || rk.Top[0].Rank != 1 ||
		len(rk.Bottom) != 2 || rk.Bottom[0].StudentID != "s1" || rk.Bottom[0].Rank != 4 || rk.Bottom[1].Value != 70 {
		t.Errorf("ranking %+v", rk)
	}

	b, _ := compute.Node(blueprint.ComputeNode{ID: "b", Op: blueprint.OpBreakdown, Source: "subs", GroupBy: blueprint.GroupSkill}, subs)
	bd := b.(compute.Breakdown)
	// Only s1 and s2 have sub-scores: grammar 40, 60 → mean 50, pass 1/2.
	if len(bd.Groups) != 4 || bd.Groups[0].Key != "grammar" || bd.Groups[0].Mean != 50 || bd.Groups[0].PassRate != 0.5 ||
		bd.Groups[1].Mean != 70 || bd.Groups[1].PassRate != 1 {
		t.Errorf("skill breakdown %+v", bd.Groups)
	}

	sc, _ := compute.Node(blueprint.ComputeNode{ID: "s", Op: blueprint.OpStats, Source: "subs", Metric: "score", Per: "submission"}, subs)
	if st := sc.(compute.Stats); st.Mean != 37.5 || st.Max != 50 || st.PassCount != 0 {
		t.Errorf("raw-score stats %+v", st)
	}
}

func statsNear(a, b compute.Stats) bool {
	return a.Metric == b.Metric && a.Per == b.Per && a.Count == b.Count && near(a.Mean, b.Mean) && near(a.Median, b.Median) &&
		near(a.StdDev, b.StdDev) && near(a.Min, b.Min) && near(a.Max, b.Max) && near(a.P25, b.P25) && near(a.P75, b.P75) &&
		near(a.P90, b.P90) && a.PassMark == b.PassMark && a.PassCount == b.PassCount && near(a.PassRate, b.PassRate)
}

// mockClassData is what the data phase gathers for class-hk-f1a: one
// get_assignment_submissions output per assignment, built here straight
// from the mock data set.
func mockClassData(t *testing.T, classID string) (blueprint.DataContext, *mockdata.Dataset) {
	t.Helper()
	d := mockdata.Default()
	type sub struct {
		StudentID   string  `json:"studentId"`
		StudentName string  `json:"studentName"`
		Score       float64 `json:"score"`
		MaxScore    float64 `json:"maxScore"`
		Skills      any     `json:"skills,omitempty"`
	}
	type out struct {
		AssignmentID string `json:"assignmentId"`
		Title        string `json:"title"`
		Submissions  []sub  `json:"submissions"`
	}
	var outs []out
	for _, a := range d.AssignmentsOf(classID) {
		o := out{AssignmentID: a.UID, Title: a.Title}
		for _, s := range d.SubmissionsOf(a.UID) {
			var sk any
			if s.Skills != nil {
				sk = s.Skills
			}
			o.Submissions = append(o.Submissions, sub{s.StudentID, s.StudentName, s.Score, s.MaxScore, sk})
		}
		outs = append(outs, o)
	}
	raw, err := json.Marshal(outs)
	if err != nil {
		t.Fatal(err)
	}
	return blueprint.DataContext{"submissions": raw}, d
}

// TestMockClassAgainstSecondMethod recomputes the analysis blueprint's
// statistics for a mock class with plain loops (two-pass variance, rank
// arithmetic) and compares.
func TestMockClassAgainstSecondMethod(t *testing.T) {
	data, d := mockClassData(t, "class-hk-f1a")
	res, err := compute.Run(blueprinttest.Analysis("class-hk-f1a"), data)
	if err != nil {
		t.Fatal(err)
	}
	// Second method: each student's mean percentage over the assignments.
	sum, n := map[string]float64{}, map[string]int{}
	for _, s := range d.Submissions {
		if st, _ := d.Student(s.StudentID); st.ClassID == "class-hk-f1a" {
			sum[s.StudentID] += s.Score / s.MaxScore * 100
			n[s.StudentID]++
		}
	}
	var xs []float64
	for id := range sum {
		xs = append(xs, sum[id]/float64(n[id]))
	}
	sort.Float64s(xs)
	count := len(xs)
	total := 0.0
	for _, x := range xs {
		total += x
	}
	mean := total / float64(count)
	ss := 0.0
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	rank := func(p float64) float64 { return xs[int(math.Ceil(p*float64(count)))-1] }
	median := xs[count/2]
	if count%2 == 0 {
		median = (xs[count/2-1] + xs[count/2]) / 2
	}
	pass := 0
	for _, x := range xs {
		if x >= 60 {
			pass++
		}
	}
	want := compute.Stats{Metric: "percent", Per: "student", Count: count, Mean: mean, Median: median,
		StdDev: math.Sqrt(ss / float64(count)), Min: xs[0], Max: xs[count-1], P25: rank(0.25), P75: rank(0.75), P90: rank(0.9),
		PassMark: 60, PassCount: pass, PassRate: float64(pass) / float64(count)}
	var got compute.Stats
	if err := json.Unmarshal(res["scoreStats"], &got); err != nil {
		t.Fatal(err)
	}
	if count != 35 || !statsNear(got, want) {
		t.Errorf("stats\n got %+v\nwant %+v", got, want)
	}

	var dist compute.Distribution
	_ = json.Unmarshal(res["scoreDistribution"], &dist)
	edges := blueprint.DefaultBins()
	for i, b := range dist.Bins {
		c := 0
		for _, x := range xs {
			if x >= edges[i] && (x < edges[i+1] || i == len(edges)-2 && x <= edges[i+1]) {
				c++
			}
		}
		if b.Count != c {
			t.Errorf("bin %s: %d, want %d", b.Label, b.Count, c)
		}
	}

	var byA compute.Breakdown
	_ = json.Unmarshal(res["byAssignment"], &byA)
	for i, a := range d.AssignmentsOf("class-hk-f1a") {
		subs := d.SubmissionsOf(a.UID)
		tot := 0.0
		for _, s := range subs {
			tot += s.Score / s.MaxScore * 100
		}
		g := byA.Groups[i]
		if g.Key != a.UID || g.Label != a.Title || g.Count != len(subs) || !near(g.Mean, tot/float64(len(subs))) {
			t.Errorf("assignment %s: %+v, want mean %v of %d", a.UID, g, tot/float64(len(subs)), len(subs))
		}
	}

	var rk compute.Ranking
	_ = json.Unmarshal(res["studentRanking"], &rk)
	if len(rk.Top) != 5 || !near(rk.Top[0].Value, xs[count-1]) || !near(rk.Bottom[0].Value, xs[0]) || rk.Bottom[0].Rank != count {
		t.Errorf("ranking %+v", rk)
	}
}

func TestEmptyAndMissingData(t *testing.T) {
	bp := blueprinttest.Analysis("x")
	res, err := compute.Run(bp, blueprint.DataContext{"submissions": json.RawMessage(`[]`)})
	if err != nil {
		t.Fatal(err)
	}
	var st compute.Stats
	_ = json.Unmarshal(res["scoreStats"], &st)
	if st.Count != 0 || st.PassRate != 0 {
		t.Errorf("empty data: %+v", st)
	}
	res, err = compute.Run(bp, blueprint.DataContext{})
	if err != nil || len(res) != 0 {
		t.Errorf("a missing (optional) binding leaves its nodes without results: %v %v", res, err)
	}
	if _, err := compute.Run(bp, blueprint.DataContext{"submissions": json.RawMessage(`"text"`)}); err == nil {
		t.Error("data that is not submissions must be an error")
	}
}

// Work not graded yet (score null) and work without a max score are left
// out of every figure and counted, never taken as 0.
func TestUngradedAndUnusableAreLeftOut(t *testing.T) {
	raw := `{"assignmentId":"a1","title":"Quiz","submissions":[
		{"studentId":"s1","score":80,"maxScore":100},
		{"studentId":"s2","score":null,"maxScore":100},
		{"studentId":"s3","score":45,"maxScore":100},
		{"studentId":"s4","score":70,"maxScore":null},
		{"studentId":"s5","score":null,"maxScore":100},
		{"studentId":"s6","score":66,"maxScore":100}]}`
	subs, err := compute.Submissions(json.RawMessage(raw))
	if err != nil {
		t.Fatal(err)
	}
	for _, per := range []string{blueprint.PerStudent, blueprint.PerSubmission} {
		res, err := compute.Node(blueprint.ComputeNode{ID: "s", Op: blueprint.OpStats, Per: per}, subs)
		if err != nil {
			t.Fatal(err)
		}
		st := res.(compute.Stats)
		// Recomputed by hand: 80, 45, 66 → mean 63.67, 2 of 3 pass (≥ 60).
		if st.Count != 3 || math.Abs(st.Mean-(80+45+66)/3.0) > 1e-9 || st.PassCount != 2 || st.Ungraded != 2 || st.Unusable != 1 || st.Min != 45 {
			t.Errorf("per %s: %+v", per, st)
		}
	}
}
