package gentools

import (
	"bytes"
	"fmt"
	"html/template"
	"math/rand/v2"

	"github.com/insightedge/insightedge/shared/i18n"
	"github.com/insightedge/insightedge/shared/office"
	"github.com/insightedge/insightedge/shared/office/htmlpage"
)

// Page kinds beyond htmlpage's built-in three (issue 30), for when the
// model asks for them: a matching exercise and a timeline. Their body is
// written here from a template (every text escaped) and then goes through
// htmlpage.Custom like a model's page: the same sanitiser, the same
// Content-Security-Policy and sandbox, nothing loaded from elsewhere.
const (
	TemplateMatching = "matching"
	TemplateTimeline = "timeline"
)

// kindText is a page kind's interface words, from the catalogue, in the
// page's language.
type kindText struct {
	Score, Retry, Correct, Wrong, ShowAll, HideAll string
}

func kindTexts(lang string) kindText {
	l := i18n.Of(lang)
	return kindText{Score: l.Text(i18n.UIScore), Retry: l.Text(i18n.UIRetry), Correct: l.Text(i18n.UICorrect),
		Wrong: l.Text(i18n.UIWrong), ShowAll: l.Text(i18n.UIShowAll), HideAll: l.Text(i18n.UIHideAll)}
}

// matchingBody: each term is matched with its definition, picked from a
// shuffled list; a right pair turns green, a wrong one says so, and the
// score counts the pairs found.
var matchingBody = template.Must(template.New("matching").Parse(`<style>
.mx{max-width:52rem;margin:1rem auto;font-family:system-ui,sans-serif;display:grid;grid-template-columns:1fr 1fr;gap:.6rem 1.2rem}
.mx button{display:block;width:100%;text-align:left;padding:.7rem .9rem;border:2px solid #c9d6e8;border-radius:10px;background:#fff;font-size:1rem;cursor:pointer}
.mx button.sel{border-color:#2f6fd0;background:#eaf2ff}
.mx button.ok{border-color:#3c8f4a;background:#eaf7ec;cursor:default}
.mx button.no{border-color:#c0392b}
.bar{max-width:52rem;margin:.5rem auto;font-family:system-ui,sans-serif;display:flex;gap:1rem;align-items:center}
</style>
<div class="bar"><span>{{.T.Score}}: <b id="score">0</b> / {{len .Pairs}}</span><span id="say" aria-live="polite"></span><button type="button" id="again">{{.T.Retry}}</button></div>
<div class="mx">
<div>{{range $i, $p := .Pairs}}<button type="button" class="term" data-k="{{$i}}">{{$p.Front}}</button>{{end}}</div>
<div>{{range .Order}}<button type="button" class="def" data-k="{{.}}">{{(index $.Pairs .).Back}}</button>{{end}}</div>
</div>
<script>
(function(){
  var picked=null, score=0, say=document.getElementById('say');
  function all(c){return Array.prototype.slice.call(document.querySelectorAll(c));}
  all('.term').forEach(function(b){b.addEventListener('click',function(){
    if(b.classList.contains('ok'))return;
    all('.term').forEach(function(x){x.classList.remove('sel');}); b.classList.add('sel'); picked=b;});});
  all('.def').forEach(function(b){b.addEventListener('click',function(){
    if(!picked||b.classList.contains('ok'))return;
    if(b.dataset.k===picked.dataset.k){b.classList.add('ok');picked.classList.add('ok');picked.classList.remove('sel');
      score++;document.getElementById('score').textContent=score;say.textContent={{.T.Correct}};picked=null;}
    else{b.classList.add('no');say.textContent={{.T.Wrong}}+' '+picked.textContent;setTimeout(function(){b.classList.remove('no');},600);}});});
  document.getElementById('again').addEventListener('click',function(){
    score=0;picked=null;document.getElementById('score').textContent=0;say.textContent='';
    all('.term,.def').forEach(function(x){x.classList.remove('ok','sel','no');});});
})();
</script>`))

// timelineBody: the events in order, each opening to its details; a
// button opens or closes them all.
var timelineBody = template.Must(template.New("timeline").Parse(`<style>
.tl{max-width:44rem;margin:1rem auto;font-family:system-ui,sans-serif;border-left:3px solid #2f6fd0;padding-left:1.2rem}
.tl details{position:relative;margin:0 0 1rem}
.tl details::before{content:"";position:absolute;left:-1.75rem;top:.35rem;width:.8rem;height:.8rem;border-radius:50%;background:#2f6fd0}
.tl summary{cursor:pointer;font-weight:600}
.tl p{margin:.4rem 0 0;line-height:1.6}
#toggle{display:block;margin:1rem auto 0;padding:.5rem 1.2rem;border:0;border-radius:8px;background:#2f6fd0;color:#fff;font-size:1rem;cursor:pointer}
</style>
<button type="button" id="toggle" data-open="{{.T.ShowAll}}" data-close="{{.T.HideAll}}">{{.T.ShowAll}}</button>
<div class="tl">{{range .Steps}}<details><summary>{{.Title}}</summary><p>{{.Body}}</p></details>{{end}}</div>
<script>
(function(){
  var b=document.getElementById('toggle'), open=false;
  b.addEventListener('click',function(){open=!open;
    Array.prototype.forEach.call(document.querySelectorAll('.tl details'),function(d){d.open=open;});
    b.textContent=open?b.dataset.close:b.dataset.open;});
})();
</script>`))

// matchingPage is the page of a matching exercise.
func matchingPage(title, lang string, pairs []htmlpage.Card) ([]byte, error) {
	order := rand.Perm(len(pairs)) // #nosec G404: the order of an exercise, not a secret
	return kindPage(matchingBody, title, lang, map[string]any{"Pairs": pairs, "Order": order, "T": kindTexts(lang)})
}

// timelinePage is the page of a timeline.
func timelinePage(title, lang string, steps []htmlpage.Step) ([]byte, error) {
	return kindPage(timelineBody, title, lang, map[string]any{"Steps": steps, "T": kindTexts(lang)})
}

func kindPage(t *template.Template, title, lang string, data any) ([]byte, error) {
	var body bytes.Buffer
	if err := t.Execute(&body, data); err != nil {
		return nil, fmt.Errorf("gentools: render %s: %w", t.Name(), err)
	}
	page, _, err := htmlpage.Custom(office.Line(title), lang, body.String())
	return page, err
}
