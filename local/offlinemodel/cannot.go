package offlinemodel

import "strings"

// What the assistant cannot do, said plainly: a request for something no
// tool of the product does (book a ticket, send an email, grade essays,
// look up the weather) is declined with what it can do instead, never
// answered as an unknown topic or with a list of classes; "what can't you
// do?" is answered with these limits.

// limit is one kind of request outside the assistant's tools.
type limit struct {
	words  []string // lower case
	zh, en string   // what it cannot do, after 不能 / can't
	// zhAlt, enAlt: what it can do nearby, "" for the general offer.
	zhAlt, enAlt string
}

func limits() []limit {
	return []limit{
		{words: []string{"机票", "火车票", "订票", "订酒店", "订房", "book a flight", "book a ticket", "book a hotel", "book flights", "plane ticket"},
			zh: "订票或预订行程", en: "book tickets or travel"},
		{words: []string{"发邮件", "发短信", "发消息给", "通知家长", "发给家长", "send an email", "email the parents", "email parents", "text the parents", "send a message"},
			zh: "替你发送邮件或消息", en: "send emails or messages for you",
			zhAlt: "我可以帮你写好要发的内容，比如一份给家长的通知文档。", enAlt: "I can draft what to send, for example a notice to parents as a document."},
		{words: []string{"批改", "改作文", "给作文打分", "给学生打分", "grade my", "grade the", "grade their", "grade students", "grade essays", "mark the essays", "mark my students", "mark their"},
			zh: "直接批改作业或作文", en: "grade or mark students' work",
			zhAlt: "我可以查看你的评分标准、分析班级的作业成绩，找出需要关注的学生。", enAlt: "I can show your rubrics, analyse the class's assignment results and find the students who need attention."},
		{words: []string{"天气", "新闻", "股票", "股价", "汇率", "weather", "the news", "stock price", "exchange rate"},
			zh: "查询天气和新闻这类实时信息", en: "look up live information such as the weather or the news"},
		{words: []string{"打电话", "call the parents", "phone the", "make a call"},
			zh: "替你打电话", en: "make phone calls for you"},
	}
}

// outOfScope is the limit a request runs into, if any.
func outOfScope(s string) (limit, bool) {
	low := strings.ToLower(teacherWords(s))
	for _, lm := range limits() {
		if containsAny(low, lm.words...) {
			return lm, true
		}
	}
	return limit{}, false
}

// canOffer is what the assistant does, offered after a decline.
func canOffer(l lang) string {
	return l.pick("我可以帮你讲解知识点、出练习题、做课件和教案、制作互动网页，以及查看和分析你班级的成绩。",
		"I can explain topics, write practice questions, make slides, lesson plans and interactive pages, and look at and analyse your classes' results.")
}

// declined answers a request the assistant cannot do.
func declined(l lang, lm limit) string {
	alt := l.pick(lm.zhAlt, lm.enAlt)
	if alt == "" {
		alt = canOffer(l)
	}
	return l.pick("抱歉，这件事我做不了：我不能"+lm.zh+"。"+alt, "Sorry, that's something I can't do: I can't "+lm.en+". "+alt)
}

// asksLimits is a question about what the assistant cannot do.
func asksLimits(s string) bool {
	return matches(`(?i)\b(what|which things?)\s+(can'?t|cannot|can not|are you unable to)\s+you\s+do\b|\byour limits\b|\bwhat are your limitations\b`, s) ||
		matches(`(你|您)(不能|不会|做不了|没法)(做)?(什么|哪些)|(你|您)有(什么|哪些)(做不了|不能做|限制)`, s)
}

// limitsAnswer says what the assistant does and what it cannot do.
func limitsAnswer(l lang) string {
	var cannot []string
	for _, lm := range limits() {
		cannot = append(cannot, l.pick(lm.zh, lm.en))
	}
	return l.pick(
		canOffer(l)+"\n\n做不了的事：不能"+strings.Join(cannot, "、不能")+"。另外，当前运行的是离线演示模型，只内置了少量示例知识（牛顿第一定律、光合作用、现在完成时、勾股定理），其他知识性问题要连接真实模型后才能可靠回答。",
		canOffer(l)+"\n\nWhat I can't do: "+strings.Join(cannot, "; ")+". Also, this is the offline demo model: it knows only a few sample topics (Newton's first law, photosynthesis, the present perfect, the Pythagorean theorem); other knowledge questions need a real model for a reliable answer.")
}

// isRequest is a message that asks for something to be done, not a
// question about a topic: it is never quoted back as one.
func isRequest(s string) bool {
	t := strings.TrimSpace(s)
	return matches(`^(请|麻烦|帮我|帮忙|给我|替我|能不能|能否|可以帮|你能帮|你可以帮|把|写|做|生成|订|发|打|画|翻译)`, t) ||
		matches(`(?i)^(please|can you|could you|would you|will you|help me|make|write|create|book|send|give me|translate|draw|order|buy)\b`, t)
}
