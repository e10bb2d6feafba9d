package offlinemodel

import (
	"fmt"
	"strings"
)

// Written questions for two known topics (牛顿第一定律 in Chinese,
// photosynthesis in English, and the lesson material's few choice questions
// in the other language), and templates for any other topic.

func questionBank(topicText string, l lang) []bankQuestion {
	t, ok := findTopic(topicText)
	if !ok {
		return nil
	}
	switch {
	case t.zh == "牛顿第一定律" && l == zh:
		return newtonBank()
	case t.en == "photosynthesis" && l == en:
		return photosynthesisBank()
	}
	// The other language's lesson material has a few choice questions.
	var out []bankQuestion
	m := materialFor(l, topicText)
	for _, q := range m.quiz {
		out = append(out, bankQuestion{singleChoice, q.Question, q.Options, q.Answer, q.Explanation, m.topic})
	}
	return out
}

func newtonBank() []bankQuestion {
	const law, inertia = "牛顿第一定律", "惯性"
	return []bankQuestion{
		{singleChoice, "牛顿第一定律指出：一切物体在没有受到力的作用时，总保持什么状态？",
			[]string{"静止状态", "匀速直线运动状态", "静止状态或匀速直线运动状态", "加速运动状态"}, "C",
			"牛顿第一定律的内容是：一切物体在没有受到力的作用时，总保持静止状态或匀速直线运动状态。原来静止的保持静止，原来运动的保持匀速直线运动。", law},
		{singleChoice, "关于惯性，下列说法正确的是：",
			[]string{"物体运动速度越大，惯性越大", "静止的物体没有惯性", "一切物体在任何情况下都有惯性", "物体受力越大，惯性越大"}, "C",
			"惯性是物体的固有属性，一切物体在任何情况下都有惯性；惯性大小只与质量有关，与速度、受力和运动状态无关。", inertia},
		{singleChoice, "在水平路面上行驶的公交车突然刹车，车内站着的乘客会：",
			[]string{"向前倾", "向后倒", "向左偏", "保持不动"}, "A",
			"刹车时乘客的脚随车一起减速，上身由于惯性要保持原来向前的运动状态，所以身体向前倾。", inertia},
		{singleChoice, "一个在光滑水平面上做匀速直线运动的小球，如果它受到的所有外力突然消失，它将：",
			[]string{"立即停止运动", "逐渐减速直到停止", "继续做匀速直线运动", "做加速运动"}, "C",
			"根据牛顿第一定律，物体不受力时保持原来的运动状态；小球原来做匀速直线运动，外力消失后仍做匀速直线运动。", law},
		{singleChoice, "下列哪个物理量是物体惯性大小的唯一量度？",
			[]string{"速度", "质量", "加速度", "受到的合力"}, "B",
			"质量是惯性大小的唯一量度：质量越大，惯性越大，运动状态越难改变。", inertia},
		{singleChoice, "牛顿第一定律是怎样得出的？",
			[]string{"完全由实验直接验证得出", "在实验基础上经过科学推理概括得出", "凭空想象得出", "由数学公式推导得出"}, "B",
			"现实中不存在完全不受力的物体，牛顿第一定律无法用实验直接验证，它是在伽利略斜面实验等基础上经过科学推理概括得出的。", law},
		{singleChoice, "下列现象中，不能用惯性解释的是：",
			[]string{"拍打衣服时灰尘脱离衣服", "跳远运动员助跑后起跳能跳得更远", "熟透的苹果从树上落向地面", "锤头松了，把锤柄在地上撞几下锤头就紧套在锤柄上"}, "C",
			"苹果下落是因为受到重力作用，运动状态发生了改变；其余三项都是利用物体的惯性。", inertia},
		{singleChoice, "关于力和运动的关系，下列说法正确的是：",
			[]string{"物体必须受力才能运动", "力是维持物体运动的原因", "力是改变物体运动状态的原因", "物体不受力时一定静止"}, "C",
			"由牛顿第一定律可知，力不是维持物体运动的原因，而是改变物体运动状态的原因；不受力的物体可能静止，也可能做匀速直线运动。", "力与运动的关系"},
		{multipleChoice, "下列说法中正确的是（多选）：",
			[]string{"一切物体都具有惯性", "物体不受力时可能做匀速直线运动", "力是维持物体运动的原因", "质量越大的物体惯性越大"}, "ABD",
			"一切物体都有惯性，且惯性只由质量决定；不受力的物体保持静止或匀速直线运动；力是改变运动状态的原因，不是维持运动的原因，所以 C 错误。", law},
		{multipleChoice, "下列事例中属于利用惯性的是（多选）：",
			[]string{"用力甩掉手上的水", "汽车配备安全气囊", "跳远时先助跑", "拍打衣服除去灰尘"}, "ACD",
			"甩水、助跑、拍打灰尘都是利用惯性；安全气囊是为了减小惯性带来的危害，属于防止惯性的危害。", inertia},
		{trueFalse, "运动的物体有惯性，静止的物体没有惯性。", nil, "错误",
			"一切物体在任何状态下都有惯性，与是否运动无关。", inertia},
		{trueFalse, "牛顿第一定律又叫惯性定律。", nil, "正确",
			"牛顿第一定律揭示了物体具有保持原来运动状态的性质，即惯性，所以又叫惯性定律。", law},
		{trueFalse, "物体不受力时，一定处于静止状态。", nil, "错误",
			"物体不受力时保持原来的运动状态：原来静止的保持静止，原来运动的做匀速直线运动。", law},
		{fillBlank, "一切物体在没有受到力的作用时，总保持______状态或______状态。", nil, "静止；匀速直线运动",
			"这是牛顿第一定律的内容。", law},
		{fillBlank, "物体保持原来运动状态不变的性质叫做______。", nil, "惯性",
			"惯性是物体的固有属性，一切物体都具有惯性。", inertia},
		{fillBlank, "惯性的大小只与物体的______有关。", nil, "质量",
			"质量是惯性大小的唯一量度。", inertia},
		{shortAnswer, "请用惯性知识解释：为什么汽车的司机和乘客都必须系好安全带？", nil,
			"汽车紧急刹车时，车很快停下，而人由于惯性仍要保持原来向前的运动状态，会向前冲撞到车内物体而受伤。安全带能对人施加向后的力，改变人的运动状态，减小惯性带来的危害。",
			"答题要点：指出刹车时人由于惯性继续向前运动；说明安全带提供阻力、防止人前冲受伤。", inertia},
		{shortAnswer, "伽利略的斜面实验说明了什么？", nil,
			"如果运动的物体不受阻力，它将以恒定的速度永远运动下去；说明力不是维持物体运动的原因。",
			"伽利略发现斜面越光滑，小球运动得越远，推理得出：没有阻力时小球将永远运动下去。", law},
	}
}

func photosynthesisBank() []bankQuestion {
	const p = "photosynthesis"
	return []bankQuestion{
		{singleChoice, "Which gas do plants take in from the air for photosynthesis?",
			[]string{"Oxygen", "Carbon dioxide", "Nitrogen", "Hydrogen"}, "B",
			"Plants absorb carbon dioxide through the stomata and use it, with water, to make glucose.", "raw materials of photosynthesis"},
		{singleChoice, "In which part of a plant cell does photosynthesis take place?",
			[]string{"Mitochondrion", "Nucleus", "Chloroplast", "Cell wall"}, "C",
			"Chloroplasts contain chlorophyll, which absorbs the light energy photosynthesis needs.", "chloroplasts"},
		{singleChoice, "Which pigment absorbs light energy for photosynthesis?",
			[]string{"Chlorophyll", "Haemoglobin", "Melanin", "Keratin"}, "A",
			"Chlorophyll, the green pigment in chloroplasts, absorbs mainly red and blue light.", "chlorophyll"},
		{singleChoice, "What are the products of photosynthesis?",
			[]string{"Carbon dioxide and water", "Glucose and oxygen", "Glucose and carbon dioxide", "Oxygen and water"}, "B",
			"Carbon dioxide and water are the reactants; glucose and oxygen are the products.", "products of photosynthesis"},
		{singleChoice, "Which word equation summarises photosynthesis?",
			[]string{"glucose + oxygen → carbon dioxide + water", "carbon dioxide + water → glucose + oxygen", "carbon dioxide + oxygen → glucose + water", "water + oxygen → glucose + carbon dioxide"}, "B",
			"Using light energy, carbon dioxide and water are converted into glucose and oxygen. The first option is respiration.", "word equation"},
		{singleChoice, "Through which structures does carbon dioxide mainly enter a leaf?",
			[]string{"Root hairs", "Stomata", "Xylem vessels", "The waxy cuticle"}, "B",
			"Stomata are tiny pores, mostly on the underside of the leaf, that let gases in and out.", "gas exchange in leaves"},
		{singleChoice, "A plant is kept in complete darkness for two days. What happens to photosynthesis?",
			[]string{"It speeds up", "It carries on at the same rate", "It stops, because there is no light energy", "It happens only in the roots"}, "C",
			"Light is the energy source for photosynthesis, so without light it cannot take place.", "conditions for photosynthesis"},
		{singleChoice, "What is the main source of energy for photosynthesis?",
			[]string{"Heat from the soil", "Light", "Glucose", "Oxygen"}, "B",
			"Light energy, usually from the Sun, is absorbed by chlorophyll and stored as chemical energy in glucose.", "energy in photosynthesis"},
		{multipleChoice, "Which of the following are raw materials of photosynthesis? (Select all that apply)",
			[]string{"Carbon dioxide", "Water", "Oxygen", "Glucose"}, "AB",
			"Carbon dioxide and water are used up; oxygen and glucose are produced.", "raw materials of photosynthesis"},
		{multipleChoice, "Which factors can limit the rate of photosynthesis? (Select all that apply)",
			[]string{"Light intensity", "Carbon dioxide concentration", "Temperature", "The colour of the flower pot"}, "ABC",
			"Light intensity, carbon dioxide concentration and temperature are the classic limiting factors; the pot's colour is not.", "limiting factors"},
		{trueFalse, "Photosynthesis releases oxygen as a by-product.", nil, "True",
			"The oxygen comes from splitting water molecules and is released into the air.", p},
		{trueFalse, "Plants carry out photosynthesis only at night.", nil, "False",
			"Photosynthesis needs light, so it happens in the light; plants respire day and night.", "conditions for photosynthesis"},
		{trueFalse, "Chlorophyll absorbs mainly green light.", nil, "False",
			"Chlorophyll absorbs mainly red and blue light and reflects green light, which is why leaves look green.", "chlorophyll"},
		{fillBlank, "Photosynthesis takes place in the ______, which contain the green pigment ______.", nil, "chloroplasts; chlorophyll",
			"Chloroplasts hold chlorophyll, which absorbs light energy.", "chloroplasts"},
		{fillBlank, "The sugar made during photosynthesis is ______.", nil, "glucose",
			"Glucose stores the energy captured from light; plants turn some of it into starch.", "products of photosynthesis"},
		{fillBlank, "Plants take in water mainly through their ______.", nil, "roots",
			"Water is absorbed by root hair cells and carried to the leaves in the xylem.", "raw materials of photosynthesis"},
		{shortAnswer, "Explain why photosynthesis is important for animals as well as for plants.", nil,
			"Photosynthesis makes glucose, the start of almost every food chain, so animals depend on it for food; it also releases the oxygen animals need for respiration.",
			"Key points: food chains start with producers; oxygen for respiration.", p},
		{shortAnswer, "Describe how you could show that light is needed for photosynthesis.", nil,
			"De-starch a plant by keeping it in the dark for 48 hours, cover part of a leaf with foil, put the plant in the light for several hours, then test the leaf with iodine: only the uncovered part turns blue-black, showing starch was made only where light reached.",
			"Key points: de-starch; cover part of a leaf; a control in light; iodine test for starch.", "conditions for photosynthesis"},
	}
}

// templateQuestion is the i-th question on a topic the bank does not know:
// plausible, correct for any topic, and naming the topic.
func templateQuestion(l lang, spec quizSpec, i int) quizQuestion {
	ts := templatesFor(l, spec)
	b := ts[i%len(ts)]
	if round := i / len(ts); round > 0 {
		b.question = l.pick(fmt.Sprintf("（巩固 %d）", round), fmt.Sprintf("(Review %d) ", round)) + b.question
	}
	rotate := 0
	if b.typ == singleChoice {
		rotate = i % len(b.options)
	}
	return b.render(l, rotate)
}

// templateCount is the number of distinct template questions for spec.
func templateCount(l lang, spec quizSpec) int { return len(templatesFor(l, spec)) }

func templatesFor(l lang, spec quizSpec) []bankQuestion {
	t := spec.Topic
	switch spec.QuestionType {
	case multipleChoice:
		return multipleTemplates(l, t)
	case trueFalse:
		return trueFalseTemplates(l, t)
	case fillBlank:
		return fillTemplates(l, t)
	case shortAnswer:
		return shortTemplates(l, t)
	}
	return singleTemplates(l, t)
}

// materialQuestions are questions written from the lesson material on the
// topic, one per part of the lesson: they give a follow-up ("再出 3 道") new
// questions once the bank and the templates are used.
func materialQuestions(l lang, spec quizSpec) []quizQuestion {
	m := materialFor(l, spec.Topic)
	n := len(m.slides)
	var out []quizQuestion
	for i, sl := range m.slides {
		title := strings.TrimSpace(sl.Title)
		var others []string
		for k := 1; len(others) < 3 && k < n; k++ {
			if o := m.slides[(i+k*2)%n]; len(o.Bullets) > 0 && o.Title != sl.Title {
				others = append(others, o.Bullets[len(o.Bullets)-1])
			}
		}
		if len(sl.Bullets) < 2 || len(others) < 3 {
			continue
		}
		part := l.pick("在「"+m.topic+"」这一课中，", "In a lesson on "+m.topic+", ")
		points := strings.Join(sl.Bullets, l.pick("；", "; "))
		why := l.pick("“"+title+"”部分的要点是："+points+"。", "The part \""+title+"\" covers: "+points+".")
		point := l.pick(m.topic+"·"+title, m.topic+": "+title)
		var b bankQuestion
		switch spec.QuestionType {
		case multipleChoice:
			b = bankQuestion{multipleChoice, part + l.pick("下列哪些属于“"+title+"”部分的内容？（多选）", "which of these belong to the part \""+title+"\"? (Select all that apply)"),
				[]string{sl.Bullets[0], sl.Bullets[1], others[0], others[1]}, "AB", why, point}
		case trueFalse:
			b = bankQuestion{trueFalse, part + l.pick("“"+title+"”部分包括这一要点："+sl.Bullets[0]+"。", "the part \""+title+"\" includes this point: "+sl.Bullets[0]+"."),
				nil, l.pick("正确", "True"), why, point}
		case fillBlank:
			b = bankQuestion{fillBlank, part + l.pick("“"+title+"”部分除了“"+sl.Bullets[1]+"”，还要讲：______。", "besides \""+sl.Bullets[1]+"\", the part \""+title+"\" covers: ______."),
				nil, sl.Bullets[0], why, point}
		case shortAnswer:
			b = bankQuestion{shortAnswer, part + l.pick("“"+title+"”部分要讲清哪些要点？请简要说明。", "what should the part \""+title+"\" make clear? Answer briefly."),
				nil, points, l.pick("答出其中两点即可得分。", "Credit any two of these points."), point}
		default:
			b = bankQuestion{singleChoice, part + l.pick("下列哪一项属于“"+title+"”部分的内容？", "which of these belongs to the part \""+title+"\"?"),
				[]string{sl.Bullets[0], others[0], others[1], others[2]}, "A", why, point}
		}
		out = append(out, b.render(l, i%4))
	}
	return out
}

func singleTemplates(l lang, t string) []bankQuestion {
	if l == zh {
		q := func(question string, correct string, wrong [3]string, explanation, point string) bankQuestion {
			return bankQuestion{singleChoice, question, []string{correct, wrong[0], wrong[1], wrong[2]}, "A", explanation, t + "·" + point}
		}
		return []bankQuestion{
			q("下列关于「"+t+"」的说法中，最恰当的是：", "理解「"+t+"」的核心概念，并能用它解释具体问题",
				[3]string{"「" + t + "」只需要记住结论，不需要理解", "「" + t + "」和其他知识点没有任何联系", "「" + t + "」的结论在任何条件下都成立"},
				"学习「"+t+"」的关键是理解概念并能迁移运用；脱离理解、忽视联系或忽略适用条件都是错误的认识。", "基本概念"),
			q("运用「"+t+"」解决问题之前，首先应该做什么？", "弄清题目条件，判断是否满足「"+t+"」的适用条件",
				[3]string{"直接套用结论，不看条件", "先猜一个答案再说", "直接参考别人的答案"},
				"任何结论都有适用条件，先审题、确认条件满足，才能正确运用「"+t+"」。", "适用条件"),
			q("下列哪种做法最能检验是否真正掌握了「"+t+"」？", "用自己的话解释「"+t+"」，并解决一道没见过的相关问题",
				[3]string{"能背出课本上的定义", "把例题抄写一遍", "记住老师板书的标题"},
				"能解释并迁移到新问题，说明真正理解了「"+t+"」；单纯记忆和抄写不能说明掌握。", "理解与迁移"),
			q("关于学习「"+t+"」时的常见错误，下列说法正确的是：", "忽略适用条件、生搬硬套是常见错误",
				[3]string{"只要记住结论就不会出错", "常见错误不值得专门整理", "出错说明这个知识点不重要"},
				"整理常见错误、弄清错因，是巩固「"+t+"」的有效方法。", "常见误区"),
			q("下列哪一项最能体现「"+t+"」与实际的联系？", "用「"+t+"」分析并解释一个身边的真实现象或问题",
				[3]string{"「" + t + "」只会在考试中出现", "「" + t + "」只和课本例题有关", "现实问题都无法用「" + t + "」分析"},
				"把「"+t+"」用于分析真实情境，既能加深理解，也能体现知识的价值。", "联系实际"),
			q("用「"+t+"」解题时，较合理的步骤是：", "审题→找出已知条件→判断能否运用「"+t+"」→求解→检验结果",
				[3]string{"先写答案→再找条件", "不看条件→直接计算", "求出结果即可，不必检验"},
				"规范的解题步骤能减少失误：审题、分析条件、选择方法、求解并检验。", "解题步骤"),
		}
	}
	q := func(question string, correct string, wrong [3]string, explanation, point string) bankQuestion {
		return bankQuestion{singleChoice, question, []string{correct, wrong[0], wrong[1], wrong[2]}, "A", explanation, t + ": " + point}
	}
	return []bankQuestion{
		q("Which statement about "+t+" is most accurate?", "Understanding the key ideas of "+t+" lets you explain new problems with it",
			[3]string{"You only need to memorise the conclusions of " + t, t + " has no connection to anything else you learn", "The conclusions of " + t + " hold under any conditions"},
			"Real understanding of "+t+" means being able to apply it; memorising alone, ignoring links or ignoring conditions are misconceptions.", "key ideas"),
		q("Before using "+t+" to solve a problem, what should you do first?", "Read the problem and check that the conditions for "+t+" are met",
			[3]string{"Apply the conclusion straight away", "Guess an answer first", "Copy a classmate's answer"},
			"Every rule has conditions; checking them first is what makes applying "+t+" correct.", "conditions"),
		q("Which of these best shows that a student really understands "+t+"?", "Explaining "+t+" in their own words and solving an unfamiliar problem with it",
			[3]string{"Reciting the textbook definition", "Copying out a worked example", "Remembering the title of the lesson"},
			"Transfer to a new problem shows understanding; recall and copying do not.", "understanding"),
		q("Which statement about common mistakes with "+t+" is correct?", "Ignoring the conditions and applying it mechanically is a common mistake",
			[3]string{"Memorising the conclusion prevents all mistakes", "Common mistakes are not worth reviewing", "Making mistakes means the topic is unimportant"},
			"Reviewing typical mistakes and their causes is an effective way to consolidate "+t+".", "common mistakes"),
		q("Which activity best connects "+t+" to real life?", "Using "+t+" to analyse and explain a real situation",
			[3]string{"Seeing " + t + " only in tests", "Linking " + t + " only to textbook examples", "Assuming real problems can't be analysed with " + t},
			"Applying "+t+" to real situations deepens understanding and shows why it matters.", "real-life links"),
		q("Which is the most sensible order when solving a problem with "+t+"?", "Read → identify what is given → decide whether "+t+" applies → solve → check",
			[3]string{"Write the answer → then look for the data", "Skip the conditions → calculate straight away", "Stop as soon as you have a result, without checking"},
			"A clear method reduces errors: read, analyse, choose the method, solve and check.", "problem solving"),
	}
}

func multipleTemplates(l lang, t string) []bankQuestion {
	if l == zh {
		return []bankQuestion{
			{multipleChoice, "下列做法中，有助于学好「" + t + "」的是（多选）：",
				[]string{"用自己的话复述核心概念", "由浅入深地做例题和练习", "只背结论、不求理解", "整理错题并分析错因"}, "ABD",
				"理解、练习和反思都能帮助掌握「" + t + "」；只背结论不求理解无法灵活运用。", t + "·学习方法"},
			{multipleChoice, "运用「" + t + "」解题前，需要确认的有（多选）：",
				[]string{"题目给出的已知条件", "是否满足「" + t + "」的适用条件", "同学的答案是什么", "相关概念和单位是否一致"}, "ABD",
				"审清条件、确认适用范围、统一概念和单位，是正确运用「" + t + "」的前提；同学的答案不是判断依据。", t + "·适用条件"},
			{multipleChoice, "用「" + t + "」解题时，合理的做法有（多选）：",
				[]string{"认真审题", "最后检验结果", "为节省时间跳过条件判断", "判断能否运用「" + t + "」"}, "ABD",
				"审题、判断适用性、检验结果都是规范的做法；跳过条件判断是常见错误。", t + "·解题步骤"},
			{multipleChoice, "下列表现中，说明真正理解了「" + t + "」的是（多选）：",
				[]string{"能用自己的话解释", "能在陌生问题中运用", "只会背定义、不会解释", "知道它什么时候不适用"}, "ABD",
				"能解释、能迁移、知道适用范围，才是真正理解；只会背诵不算。", t + "·理解与迁移"},
		}
	}
	return []bankQuestion{
		{multipleChoice, "Which of these help students learn " + t + " well? (Select all that apply)",
			[]string{"Explaining the key ideas in their own words", "Working through examples from easy to hard", "Memorising conclusions without understanding them", "Reviewing mistakes and their causes"}, "ABD",
			"Understanding, practice and reflection all build mastery of " + t + "; memorising without understanding does not transfer.", t + ": study methods"},
		{multipleChoice, "Before applying " + t + ", what should you check? (Select all that apply)",
			[]string{"The information given in the problem", "Whether the conditions for " + t + " are met", "What a classmate wrote", "That terms and units are used consistently"}, "ABD",
			"Checking the givens, the conditions and consistency comes first; a classmate's answer is not evidence.", t + ": conditions"},
		{multipleChoice, "Which of these are sensible steps when solving a problem with " + t + "? (Select all that apply)",
			[]string{"Read the problem carefully", "Check the result at the end", "Skip the conditions to save time", "Decide whether " + t + " applies"}, "ABD",
			"Reading, checking applicability and checking the result are part of a sound method; skipping the conditions is a common mistake.", t + ": problem solving"},
		{multipleChoice, "Which of these show a real understanding of " + t + "? (Select all that apply)",
			[]string{"Explaining it in your own words", "Using it in an unfamiliar problem", "Reciting the definition without explaining it", "Spotting when it does not apply"}, "ABD",
			"Explaining, transferring and knowing the limits show understanding; reciting alone does not.", t + ": understanding"},
	}
}

func trueFalseTemplates(l lang, t string) []bankQuestion {
	if l == zh {
		return []bankQuestion{
			{trueFalse, "「" + t + "」的结论在任何条件下都成立，不需要考虑适用范围。", nil, "错误", "结论都有适用条件，忽略条件是常见错误。", t + "·适用条件"},
			{trueFalse, "理解「" + t + "」的核心概念，比单纯记住结论更重要。", nil, "正确", "理解概念才能灵活运用，单纯记忆难以迁移到新问题。", t + "·基本概念"},
			{trueFalse, "能用「" + t + "」解释身边的现象，说明对它理解得比较深入。", nil, "正确", "能联系实际、解释新情境，是深入理解的表现。", t + "·联系实际"},
			{trueFalse, "学习「" + t + "」时，整理错题、分析错因对巩固知识没有帮助。", nil, "错误", "整理错题、弄清错因是巩固知识的有效方法。", t + "·学习方法"},
			{trueFalse, "运用「" + t + "」解题后，应该检验结果是否合理。", nil, "正确", "检验结果能发现计算或推理中的错误，是规范解题的一部分。", t + "·解题步骤"},
		}
	}
	return []bankQuestion{
		{trueFalse, "The conclusions of " + t + " hold under any conditions, so its scope never needs checking.", nil, "False", "Every rule has conditions; ignoring them is a common mistake.", t + ": conditions"},
		{trueFalse, "Understanding the key ideas of " + t + " matters more than memorising its conclusions.", nil, "True", "Understanding lets students apply ideas to new problems; memorising alone does not.", t + ": key ideas"},
		{trueFalse, "Being able to explain everyday situations with " + t + " shows a deep understanding of it.", nil, "True", "Applying knowledge to new, real situations is a sign of real understanding.", t + ": real-life links"},
		{trueFalse, "Reviewing mistakes and their causes does not help students consolidate " + t + ".", nil, "False", "Keeping an error log and understanding the causes is an effective way to consolidate knowledge.", t + ": study methods"},
		{trueFalse, "After solving a problem with " + t + ", students should check whether the result is reasonable.", nil, "True", "Checking the result catches calculation and reasoning errors; it is part of a sound method.", t + ": problem solving"},
	}
}

func fillTemplates(l lang, t string) []bankQuestion {
	if l == zh {
		return []bankQuestion{
			{fillBlank, "学习「" + t + "」时，应先理解它的______，再通过练习加以巩固。", nil, "核心概念", "先理解概念，再通过练习巩固，是掌握新知识的基本顺序。", t + "·基本概念"},
			{fillBlank, "运用「" + t + "」解题前，要先判断题目是否满足它的______。", nil, "适用条件", "只有在满足适用条件时，结论才能正确使用。", t + "·适用条件"},
			{fillBlank, "用「" + t + "」解题的一般步骤是：审题→分析条件→求解→______。", nil, "检验", "求解之后要检验结果是否合理，才算完整地解决了问题。", t + "·解题步骤"},
			{fillBlank, "把学习「" + t + "」时做错的题整理下来，并写明______，能有效避免再犯同样的错误。", nil, "错误原因", "弄清错因才能对症改进，避免重复出错。", t + "·常见误区"},
		}
	}
	return []bankQuestion{
		{fillBlank, "When learning " + t + ", first understand its ______, then practise to consolidate it.", nil, "key ideas", "Understanding comes first; practice then makes it stick.", t + ": key ideas"},
		{fillBlank, "Before using " + t + " to solve a problem, check that its ______ are met.", nil, "conditions", "A rule can only be applied correctly when its conditions hold.", t + ": conditions"},
		{fillBlank, "A sound method with " + t + ": read, analyse the conditions, solve, then ______ the result.", nil, "check", "Checking the result is what completes a solution.", t + ": problem solving"},
		{fillBlank, "Keeping a log of mistakes on " + t + " together with their ______ helps avoid repeating them.", nil, "causes", "Knowing why an answer was wrong is what prevents the same mistake.", t + ": common mistakes"},
	}
}

func shortTemplates(l lang, t string) []bankQuestion {
	if l == zh {
		return []bankQuestion{
			{shortAnswer, "请用自己的话简要说明「" + t + "」的核心内容，并举一个例子。", nil,
				"要点：准确说明「" + t + "」的核心概念；举出恰当的实例；说明实例与概念之间的联系。", "评分时关注概念是否准确、例子是否恰当、联系是否说清。", t + "·基本概念"},
			{shortAnswer, "学习「" + t + "」时最容易出现哪些错误？应该如何避免？", nil,
				"要点：指出 1–2 个常见错误（如忽略适用条件、概念混淆）；给出对应的避免方法（认真审题、对比辨析、整理错题）。", "答出常见错误及对应的改进方法即可得分。", t + "·常见误区"},
			{shortAnswer, "举一个生活中的例子，说明「" + t + "」可以用来解释或解决什么问题。", nil,
				"要点：例子真实、贴切；说清楚例子中哪一部分用到了「" + t + "」；结论正确。", "例子恰当并说清与「" + t + "」的联系即可得分。", t + "·联系实际"},
			{shortAnswer, "用「" + t + "」解题时，一般按照怎样的步骤进行？每一步要注意什么？", nil,
				"要点：审题（找出已知和所求）→分析条件（判断能否用「" + t + "」）→求解（书写规范）→检验（结果是否合理）。", "步骤完整、每步说出一个注意点即可得分。", t + "·解题步骤"},
		}
	}
	return []bankQuestion{
		{shortAnswer, "In your own words, summarise the key idea of " + strings.TrimSpace(t) + " and give one example.", nil,
			"Key points: a correct statement of the key idea of " + t + "; a suitable example; a clear link between the example and the idea.", "Mark for accuracy of the idea, a fitting example and the link between them.", t + ": key ideas"},
		{shortAnswer, "What mistakes do students often make with " + t + ", and how can they be avoided?", nil,
			"Key points: one or two typical mistakes (such as ignoring conditions or mixing up terms) and a matching strategy (careful reading, comparing similar ideas, keeping an error log).", "Credit a typical mistake with a matching way to avoid it.", t + ": common mistakes"},
		{shortAnswer, "Give an everyday example of a problem that " + t + " helps to explain or solve.", nil,
			"Key points: a real, fitting example; which part of it uses " + t + "; a correct conclusion.", "Credit a fitting example with a clear link to " + t + ".", t + ": real-life links"},
		{shortAnswer, "Describe the steps for solving a problem with " + t + " and what to watch at each step.", nil,
			"Key points: read (what is given and asked) → check the conditions for " + t + " → solve neatly → check the result.", "Credit complete steps with one point to watch at each.", t + ": problem solving"},
	}
}
