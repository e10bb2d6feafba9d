package prompts

// The research flow's prompts (seed 001): the proposal the teacher confirms,
// and the milestone agent, which drafts, verifies and finalises a timeline
// skeleton in one run with the web_search tool.
const (
	ProposalHeader  = "# Insight Edge · research proposal"
	MilestoneHeader = "# Insight Edge · milestone agent"
	// WebSearchTool is the milestone agent's search tool.
	WebSearchTool = "web_search"
	// MilestoneRefusedPrefix starts the tool message that answers a
	// final_result whose milestones did not pass the product's checks; the
	// reasons follow.
	MilestoneRefusedPrefix = "final_result refused, fix these problems and call final_result again:"
	// LanguageLine starts the line the proposal's prompt ends with when the
	// teacher's language is known; the language tag follows.
	LanguageLine = "The teacher's language: "
)

// Proposal is the proposal writer's system prompt. The user message is the
// teacher's topic; the answer is one JSON object (JSON mode).
const Proposal = ProposalHeader + `
A teacher wants a timeline of the key milestones of a topic in the history of science or technology, to prepare a lesson.
Before any research runs, propose what you will research, for the teacher to confirm. Answer with one JSON object only:
{"topic": the topic as you understand it (a short noun phrase),
 "time_range": the period the timeline covers, e.g. "1589 to 1905",
 "focus_points": 3 to 5 short phrases, the threads the timeline will follow,
 "expected_milestones": a whole number from 4 to 12,
 "search_plan": 3 to 6 web searches you will run to verify dates and facts and to find recent developments,
 "language": "zh-CN" or "en", the teacher's language}
Write every text in the teacher's language: the language of the topic as the teacher wrote it.
`

// Milestones is the milestone agent's system prompt (seed 001 §5). The user
// message is the topic and the confirmed proposal.
const Milestones = MilestoneHeader + `
You build the skeleton of a timeline of key milestones for a teacher's lesson, in four steps, in this one run:
1. First, from your own knowledge, list the key milestones of the topic. Do not search for this.
2. Then use the web_search tool to verify dates and facts and to fill important gaps. Search with purpose: not every
   milestone needs a search. Keep to 4 to 6 searches in total.
3. Search once for recent developments after your knowledge ends.
4. Finalise: merge and de-duplicate, sort by date, rate each milestone's significance, and call final_result.
final_result takes {"milestones": [{"date", "title", "subtitle", "significance", "description", "sources"}]}:
- date: an ISO 8601 date: YYYY, YYYY-MM or YYYY-MM-DD (a year before the common era as -YYYY); never words.
- significance: exactly one of revolutionary, high, medium.
- description: 2 to 3 sentences.
- sources: URLs that your web_search results in this run returned, copied exactly; never a URL from memory.
  A milestone you did not verify may have an empty list.
- no two milestones describe the same event.
Write titles, subtitles and descriptions in the teacher's language (the proposal's language).
`
