package offlinemodel

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Teaching material the stand-in writes into decks, documents and pages:
// written out for two known topics (photosynthesis, Newton's first law) in
// both languages, and a plausible template for any other topic. Every
// generation tool's arguments are built from one material, so a deck, a
// lesson plan and a page on the same topic agree with each other.

// material is what the stand-in knows about teaching one topic.
type material struct {
	topic   string // as the teacher named it, in the answer's language
	title   string // the topic as a heading: first letter capitalised
	subject string
	grade   string // a typical grade, "" when unknown
	// slides are the content slides of a deck (6–10), each with notes.
	slides       []slideArg
	objectives   []string
	keyPoints    []string
	difficulties []string
	// process is the lesson's procedure: phase, time, teacher, students.
	process  [][4]string
	homework []string
	// cards are flashcards (front, back); empty means derived from slides.
	cards [][2]string
	// quiz is a self-check; empty means written from the quiz templates.
	quiz []itemArg
}

// materialFor returns the material on topic in language l.
func materialFor(l lang, topicText string) material {
	if t, ok := findTopic(topicText); ok {
		switch {
		case t.en == "photosynthesis":
			return photosynthesis(l)
		case t.zh == "牛顿第一定律":
			return newtonsFirstLaw(l)
		}
	}
	return genericMaterial(l, topicText)
}

// headline capitalises the first letter: "photosynthesis" → "Photosynthesis".
func headline(s string) string {
	s = strings.TrimSpace(s)
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

func slide(title, notes string, bullets ...string) slideArg {
	return slideArg{Title: title, Bullets: bullets, Notes: notes}
}

func choice(question string, options []string, answer, explanation string) itemArg {
	return itemArg{Question: question, Options: options, Answer: answer, Explanation: explanation}
}

func photosynthesis(l lang) material {
	if l == zh {
		return material{
			topic: "光合作用", title: "光合作用", subject: "生物", grade: "七年级",
			slides: []slideArg{
				slide("导入：植物的“食物”从哪里来？", "展示实验数据，先让学生大胆猜想，不急于给出答案。",
					"海尔蒙特的柳树实验：5 年里柳树增重约 74 千克", "同期土壤只减少了约 0.06 千克", "思考：柳树增加的质量来自哪里？"),
				slide("光合作用的概念", "板书概念，圈出“光能”“二氧化碳和水”“有机物”“氧气”。",
					"绿色植物利用光能进行", "把二氧化碳和水合成有机物（主要是葡萄糖）", "同时释放氧气"),
				slide("场所：叶绿体", "结合叶片结构图，请学生指出叶绿体的位置。",
					"叶绿体主要分布在叶肉细胞中", "叶绿素吸收光能，使叶片呈绿色", "叶片是进行光合作用的主要器官"),
				slide("原料、条件与产物", "把文字表达式中的每一项与原料、条件、产物一一对应。",
					"原料：二氧化碳（经气孔进入）和水（由根吸收）", "条件：光；场所：叶绿体", "产物：有机物和氧气",
					"二氧化碳 + 水 →（光能、叶绿体）→ 有机物 + 氧气"),
				slide("实验：绿叶在光下制造淀粉", "强调暗处理是为了耗尽叶片中原有的淀粉，遮光部分是对照。",
					"暗处理：把天竺葵放在黑暗处一昼夜", "部分遮光后光照几小时，再用酒精脱色", "滴加碘液：见光部分变蓝，遮光部分不变蓝"),
				slide("能量的转化", "用“储蓄罐”作比喻：光合作用存入能量，呼吸作用取出能量。",
					"光能转化为储存在有机物中的化学能", "有机物用于植物生长，也是其他生物的食物", "呼吸作用把有机物中的能量释放出来"),
				slide("光合作用的意义", "联系大棚种植，请学生说说提高产量的办法。",
					"为几乎所有生物提供食物和能量", "释放氧气，维持大气中的碳—氧平衡", "农业上合理密植、延长光照可以提高产量"),
				slide("课堂小结与练习", "请两位学生复述概念，讲评练习，留 3 分钟答疑。",
					"一句话概括：光能把二氧化碳和水变成有机物和氧气", "练习：温室里为什么可以适当增加二氧化碳浓度？", "课后：观察一种植物叶片的颜色和朝向"),
			},
			objectives: []string{
				"说出光合作用的概念，写出光合作用的文字表达式。",
				"通过“绿叶在光下制造淀粉”实验，学会设置对照实验。",
				"认识光合作用对生物圈的意义，增强保护绿色植物的意识。",
			},
			keyPoints:    []string{"光合作用的概念、原料、条件和产物。"},
			difficulties: []string{"对照实验的设计思路。", "光合作用中光能向化学能的转化。"},
			process: [][4]string{
				{"导入", "5 分钟", "展示柳树实验数据并提问", "猜想柳树增重的来源"},
				{"新授：概念", "10 分钟", "讲解光合作用的概念和文字表达式", "找出原料、条件和产物"},
				{"实验探究", "15 分钟", "演示并讲解绿叶在光下制造淀粉", "观察现象，分析对照组"},
				{"意义与应用", "8 分钟", "联系大棚种植讲解光合作用的意义", "讨论提高作物产量的办法"},
				{"小结与练习", "7 分钟", "组织小结，讲评课堂练习", "复述概念，完成练习"},
			},
			homework: []string{
				"写出光合作用的文字表达式，并标出原料、条件和产物。",
				"说明温室中适当增加二氧化碳浓度能提高产量的原因。",
				"观察家中的一种植物，记录叶片的颜色和朝向。",
			},
			cards: [][2]string{
				{"光合作用", "绿色植物利用光能，把二氧化碳和水合成有机物并释放氧气的过程"},
				{"叶绿体", "进行光合作用的场所，主要分布在叶肉细胞中"},
				{"叶绿素", "叶绿体中吸收光能的绿色色素"},
				{"气孔", "二氧化碳进入叶片、氧气离开叶片的通道"},
				{"原料", "二氧化碳和水"},
				{"产物", "有机物（主要是淀粉等糖类）和氧气"},
				{"碘液检验", "淀粉遇碘变蓝，用来检验叶片是否制造了淀粉"},
				{"能量转化", "光能转化为储存在有机物中的化学能"},
			},
			quiz: []itemArg{
				choice("光合作用进行的场所是：", []string{"线粒体", "叶绿体", "细胞核", "液泡"}, "B", "叶绿体中的叶绿素能吸收光能，光合作用在叶绿体中进行。"),
				choice("光合作用的原料是：", []string{"二氧化碳和水", "有机物和氧气", "氧气和水", "淀粉和二氧化碳"}, "A", "二氧化碳经气孔进入叶片，水由根吸收，它们是光合作用的原料。"),
				choice("“绿叶在光下制造淀粉”实验中，滴加碘液后见光部分：", []string{"不变色", "变红", "变蓝", "变黄"}, "C", "见光部分进行了光合作用，产生的淀粉遇碘变蓝。"),
				choice("光合作用中的能量转化是：", []string{"化学能→光能", "光能→化学能", "热能→光能", "化学能→热能"}, "B", "光合作用把光能转化为化学能，储存在有机物中。"),
				choice("实验前把天竺葵放在黑暗处一昼夜，目的是：", []string{"让叶片吸收更多水分", "耗尽叶片中原有的淀粉", "让叶片长得更快", "降低叶片的温度"}, "B", "暗处理让叶片中原有的淀粉被运走或耗尽，实验中检出的淀粉才能说明是光照下新制造的。"),
			},
		}
	}
	return material{
		topic: "photosynthesis", title: "Photosynthesis", subject: "Biology", grade: "Year 7",
		slides: []slideArg{
			slide("Starter: where does a plant's food come from?", "Show the data and let students guess before giving any answer.",
				"Van Helmont's willow tree gained about 74 kg in five years", "The soil lost only about 0.06 kg", "Where did the extra mass come from?"),
			slide("What is photosynthesis?", "Write the definition and underline light, carbon dioxide, water, glucose and oxygen.",
				"Green plants use light energy", "Carbon dioxide and water are made into glucose", "Oxygen is released as a by-product"),
			slide("Where: the chloroplast", "Use a leaf cross-section and ask students to point out the chloroplasts.",
				"Chloroplasts are mostly in the palisade cells of the leaf", "Chlorophyll absorbs light and makes leaves green", "Leaves are adapted to catch as much light as possible"),
			slide("Inputs, conditions and products", "Link each term of the word equation to inputs, conditions and products.",
				"Inputs: carbon dioxide (through the stomata) and water (from the roots)", "Conditions: light and chlorophyll", "Products: glucose and oxygen",
				"carbon dioxide + water → glucose + oxygen"),
			slide("Practical: testing a leaf for starch", "Stress that the covered part is the control; keep ethanol away from flames.",
				"Destarch the plant in the dark for 24 hours", "Cover part of a leaf, then leave the plant in light", "Iodine turns blue-black only where light reached the leaf"),
			slide("Energy transfer", "Use the piggy-bank analogy: photosynthesis saves energy, respiration spends it.",
				"Light energy becomes chemical energy stored in glucose", "Glucose is used for growth, respiration and starch storage", "Respiration releases the stored energy"),
			slide("Why photosynthesis matters", "Ask students how a farmer could make crops grow faster in a greenhouse.",
				"It is the start of almost every food chain", "It releases the oxygen we breathe", "Greenhouses raise yields with extra light, warmth and carbon dioxide"),
			slide("Summary and practice", "Have two students restate the equation; leave three minutes for questions.",
				"Light turns carbon dioxide and water into glucose and oxygen", "Question: why do greenhouse growers add carbon dioxide?", "Homework: find three ways leaves are adapted for photosynthesis"),
		},
		objectives: []string{
			"State what photosynthesis is and write its word equation.",
			"Carry out a starch test on a leaf, with a control.",
			"Explain why photosynthesis matters for food chains and the air.",
		},
		keyPoints:    []string{"The inputs, conditions and products of photosynthesis."},
		difficulties: []string{"Why the covered part of the leaf is the control.", "How light energy ends up stored in glucose."},
		process: [][4]string{
			{"Starter", "5 min", "Show the willow-tree data and ask where the mass came from", "Predict and discuss in pairs"},
			{"Definition", "10 min", "Explain the definition and the word equation", "Label inputs, conditions and products"},
			{"Practical", "15 min", "Demonstrate the starch test on a partly covered leaf", "Observe, record and explain the results"},
			{"Applications", "8 min", "Link photosynthesis to food chains and greenhouses", "Suggest ways to raise crop yields"},
			{"Plenary", "7 min", "Lead the summary and set the exit question", "Restate the equation and answer the exit question"},
		},
		homework: []string{
			"Write the word equation and label the inputs, conditions and products.",
			"Explain why adding carbon dioxide to a greenhouse can increase the yield.",
			"Describe three ways a leaf is adapted for photosynthesis.",
		},
		cards: [][2]string{
			{"Photosynthesis", "Green plants using light energy to make glucose and oxygen from carbon dioxide and water"},
			{"Chloroplast", "The part of a plant cell where photosynthesis happens"},
			{"Chlorophyll", "The green pigment in chloroplasts that absorbs light"},
			{"Stomata", "Pores in the leaf that let carbon dioxide in and oxygen out"},
			{"Inputs", "Carbon dioxide and water"},
			{"Products", "Glucose and oxygen"},
			{"Iodine test", "Iodine turns blue-black when starch is present"},
			{"Energy transfer", "Light energy becomes chemical energy stored in glucose"},
		},
		quiz: []itemArg{
			choice("Where in a plant cell does photosynthesis take place?", []string{"Mitochondria", "Chloroplasts", "Nucleus", "Vacuole"}, "B", "Chloroplasts contain chlorophyll, which absorbs the light that photosynthesis needs."),
			choice("Which two substances does a plant use in photosynthesis?", []string{"Carbon dioxide and water", "Glucose and oxygen", "Oxygen and water", "Starch and carbon dioxide"}, "A", "Carbon dioxide comes in through the stomata and water comes from the roots."),
			choice("In the starch test, what happens where light reached the leaf?", []string{"No colour change", "It turns red", "It turns blue-black", "It turns yellow"}, "C", "That part made starch, and iodine turns blue-black with starch."),
			choice("What energy change happens in photosynthesis?", []string{"Chemical → light", "Light → chemical", "Heat → light", "Chemical → heat"}, "B", "Light energy is stored as chemical energy in glucose."),
			choice("Why is the plant kept in the dark for 24 hours before the starch test?", []string{"To water the leaves", "To use up the starch already in the leaves", "To make it grow faster", "To cool the leaves"}, "B", "Destarching means any starch found later must have been made during the experiment."),
		},
	}
}

func newtonsFirstLaw(l lang) material {
	if l == zh {
		return material{
			topic: "牛顿第一定律", title: "牛顿第一定律", subject: "物理", grade: "八年级",
			slides: []slideArg{
				slide("导入：运动需要力来维持吗？", "先让学生凭生活经验回答，记录不同观点，为实验埋下伏笔。",
					"推箱子：停止用力，箱子很快停下", "冰面上的冰壶却能滑行很远", "亚里士多德：力是维持物体运动的原因？"),
				slide("探究：阻力对运动的影响", "强调让小车从同一高度滑下，是为了控制到达水平面时的速度相同。",
					"让小车从斜面同一高度滑下", "分别经过毛巾、棉布、木板表面", "表面越光滑，阻力越小，小车滑得越远"),
				slide("伽利略的理想实验", "用动画演示，强调“实验 + 科学推理”的研究方法。",
					"斜面越光滑，小球越接近原来的高度", "把第二个斜面放平，小球会一直滚下去", "推理：没有阻力，物体将永远运动下去"),
				slide("牛顿第一定律的内容", "逐词解析：“一切”“没有受到力”“总保持”“或”。",
					"一切物体在没有受到力的作用时", "总保持静止状态或匀速直线运动状态", "又叫惯性定律"),
				slide("理解定律：力与运动", "回到导入问题，请学生用定律重新解释推箱子。",
					"力不是维持物体运动的原因", "力是改变物体运动状态的原因", "定律是在实验基础上推理概括得出的"),
				slide("惯性", "纠正“速度越大惯性越大”“静止的物体没有惯性”等常见误解。",
					"物体保持原来运动状态不变的性质叫惯性", "一切物体在任何情况下都有惯性", "惯性的大小只与质量有关"),
				slide("生活中的惯性", "请学生分组举例，区分“利用惯性”和“防止惯性的危害”。",
					"利用：拍打衣服除尘、跳远助跑", "防止危害：系安全带、保持车距", "急刹车时乘客向前倾"),
				slide("课堂小结与练习", "请学生复述定律，讲评练习，留 3 分钟答疑。",
					"不受力时，物体保持静止或匀速直线运动", "惯性是物体的固有属性，只与质量有关", "练习：锤头松了，为什么撞击锤柄能套紧？"),
			},
			objectives: []string{
				"知道牛顿第一定律的内容，理解力与运动的关系。",
				"经历阻力对运动影响的探究，体会“实验 + 推理”的方法。",
				"知道惯性的概念，能用惯性解释生活中的现象。",
			},
			keyPoints:    []string{"牛顿第一定律的内容和意义。", "惯性的概念。"},
			difficulties: []string{"理解力不是维持物体运动的原因。", "理解惯性的大小只与质量有关。"},
			process: [][4]string{
				{"导入", "5 分钟", "演示推箱子与冰壶滑行，提出问题", "说出自己的猜想"},
				{"实验探究", "12 分钟", "组织小车在不同表面滑行的实验", "分组实验，记录滑行距离"},
				{"推理归纳", "10 分钟", "介绍伽利略理想实验，引导推理", "推理不受力时的运动，归纳定律"},
				{"惯性", "10 分钟", "讲解惯性概念，纠正常见误解", "举出利用和防止惯性的例子"},
				{"小结与练习", "8 分钟", "组织小结，讲评课堂练习", "复述定律，完成练习"},
			},
			homework: []string{
				"用自己的话写出牛顿第一定律，并说明力和运动的关系。",
				"举出两个利用惯性和两个防止惯性危害的例子。",
				"解释：为什么乘车时必须系好安全带？",
			},
			cards: [][2]string{
				{"牛顿第一定律", "一切物体在没有受到力的作用时，总保持静止状态或匀速直线运动状态"},
				{"惯性", "物体保持原来运动状态不变的性质"},
				{"惯性的大小", "只由质量决定，与速度、是否受力无关"},
				{"力与运动", "力不是维持运动的原因，而是改变运动状态的原因"},
				{"伽利略理想实验", "没有阻力时，运动的物体将永远运动下去"},
				{"阻力实验", "表面越光滑，阻力越小，小车滑行越远"},
				{"安全带", "急刹车时防止人由于惯性向前冲而受伤"},
				{"匀速直线运动", "速度大小和方向都不变的运动"},
			},
			quiz: []itemArg{
				choice("牛顿第一定律指出：物体在没有受到力的作用时，总保持：", []string{"静止状态", "匀速直线运动状态", "静止状态或匀速直线运动状态", "加速运动状态"}, "C", "原来静止的保持静止，原来运动的保持匀速直线运动。"),
				choice("关于惯性，下列说法正确的是：", []string{"速度越大，惯性越大", "静止的物体没有惯性", "一切物体在任何情况下都有惯性", "受力越大，惯性越大"}, "C", "惯性是物体的固有属性，大小只与质量有关。"),
				choice("公交车突然刹车时，站着的乘客会：", []string{"向前倾", "向后倒", "向左偏", "保持不动"}, "A", "脚随车减速，上身由于惯性保持向前运动，所以向前倾。"),
				choice("关于力和运动的关系，正确的是：", []string{"物体必须受力才能运动", "力是维持运动的原因", "力是改变运动状态的原因", "不受力的物体一定静止"}, "C", "由牛顿第一定律可知，力是改变物体运动状态的原因。"),
				choice("牛顿第一定律是怎样得出的？", []string{"由实验直接验证", "在实验基础上经过科学推理概括得出", "凭空想象得出", "由数学公式推导得出"}, "B", "现实中没有不受力的物体，定律是在实验基础上推理概括得出的。"),
			},
		}
	}
	return material{
		topic: "Newton's first law", title: "Newton's first law", subject: "Physics", grade: "Grade 8",
		slides: []slideArg{
			slide("Starter: does motion need a force?", "Collect students' ideas from everyday life before any experiment.",
				"A pushed box stops soon after you stop pushing", "A curling stone glides a long way on ice", "Aristotle: a force is needed to keep things moving?"),
			slide("Investigation: friction and motion", "Releasing the trolley from the same height keeps its starting speed the same.",
				"Release a trolley from the same height on a ramp", "Let it run over towel, cloth and wood", "The smoother the surface, the further it goes"),
			slide("Galileo's thought experiment", "Stress the method: experiment plus careful reasoning.",
				"On smooth ramps a ball rises almost to its starting height", "Flatten the second ramp and the ball keeps rolling", "Without friction it would roll on for ever"),
			slide("The law", "Go through the wording: every object, no net force, stays at rest or moves steadily.",
				"An object stays at rest or keeps moving in a straight line at constant speed", "unless a net force acts on it", "Also called the law of inertia"),
			slide("Force and motion", "Go back to the pushed box and explain it with the law.",
				"A force is not needed to keep an object moving", "A force is what changes an object's motion", "The law comes from experiments plus reasoning"),
			slide("Inertia", "Correct the myths that faster objects or moving objects have more inertia.",
				"Inertia is the tendency to keep the same motion", "Every object has inertia, moving or not", "The more mass, the more inertia"),
			slide("Inertia in everyday life", "Sort students' examples into using inertia and protecting against it.",
				"Using it: shaking dust off a coat, a run-up for the long jump", "Protecting against it: seat belts, keeping a safe distance", "Passengers lurch forward when a bus brakes"),
			slide("Summary and practice", "Ask a student to restate the law, go through the question, leave time for questions.",
				"With no net force, motion does not change", "Inertia depends only on mass", "Question: why does banging a hammer's handle tighten a loose head?"),
		},
		objectives: []string{
			"State Newton's first law and explain how force and motion are related.",
			"Investigate how friction affects motion and reason beyond the experiment.",
			"Use the idea of inertia to explain everyday situations.",
		},
		keyPoints:    []string{"The statement and meaning of Newton's first law.", "The idea of inertia."},
		difficulties: []string{"A force is not needed to keep an object moving.", "Inertia depends only on mass."},
		process: [][4]string{
			{"Starter", "5 min", "Show a pushed box and a curling stone, ask the question", "Share their predictions"},
			{"Investigation", "12 min", "Run the trolley on three surfaces", "Measure and record the distances in groups"},
			{"Reasoning", "10 min", "Present Galileo's thought experiment", "Reason about motion with no friction and state the law"},
			{"Inertia", "10 min", "Explain inertia and correct common myths", "Give examples of using and guarding against inertia"},
			{"Plenary", "8 min", "Lead the summary and review the practice question", "Restate the law and answer the question"},
		},
		homework: []string{
			"Write Newton's first law in your own words and explain how force and motion are related.",
			"Give two examples of using inertia and two of protecting against it.",
			"Explain why passengers must wear seat belts.",
		},
		cards: [][2]string{
			{"Newton's first law", "An object stays at rest or moves at constant velocity unless a net force acts on it"},
			{"Inertia", "The tendency of an object to keep the same motion"},
			{"What inertia depends on", "Only the object's mass"},
			{"Force and motion", "A force changes motion; it is not needed to keep motion going"},
			{"Galileo's thought experiment", "Without friction a rolling ball would keep rolling for ever"},
			{"Friction investigation", "The smoother the surface, the further the trolley travels"},
			{"Seat belts", "They stop passengers lurching forward when a car brakes"},
			{"Constant velocity", "Moving at a steady speed in a straight line"},
		},
		quiz: []itemArg{
			choice("According to Newton's first law, an object with no net force on it:", []string{"Always stops", "Stays at rest or keeps moving at constant velocity", "Speeds up", "Moves in a circle"}, "B", "With no net force, an object's motion does not change."),
			choice("Which statement about inertia is correct?", []string{"Faster objects have more inertia", "Objects at rest have no inertia", "Every object has inertia", "A bigger force gives more inertia"}, "C", "Inertia is a property of all matter and depends only on mass."),
			choice("When a bus brakes suddenly, standing passengers:", []string{"Lurch forward", "Fall backwards", "Move sideways", "Do not move"}, "A", "Their bodies keep moving forward because of inertia."),
			choice("What does a force do to an object's motion?", []string{"Keeps it moving", "Changes it", "Nothing", "Only stops it"}, "B", "A force changes an object's speed or direction; it is not needed to keep it moving."),
			choice("How was Newton's first law established?", []string{"By one direct experiment", "By experiments plus reasoning", "By guesswork", "By a formula alone"}, "B", "Nothing is ever free of all forces, so the law rests on experiments and careful reasoning."),
		},
	}
}

// genericMaterial is the template for a topic the stand-in does not know:
// a sound lesson structure that names the topic.
func genericMaterial(l lang, t string) material {
	subject := subjectOf(l, t)
	if l == zh {
		q := "「" + t + "」"
		return material{
			topic: t, title: t, subject: subject,
			slides: []slideArg{
				slide("导入：生活中的"+q, "用一个贴近学生生活的例子开场，收集学生已有的认识。",
					"从一个身边的问题引出"+q, "请学生说说已经知道什么", "明确本节课的学习目标"),
				slide(q+"的核心概念", "板书定义，圈出关键词，请学生用自己的话复述。",
					"用准确的语言说出"+q+"的含义", "找出定义中的关键词", "与相近的概念进行对比"),
				slide("关键要点", "逐条讲解，每讲完一条请学生举例检验理解。",
					"基本内容与结论", "成立的条件与适用范围", "常见的表示方法"),
				slide("例题讲解", "示范完整的思考过程，而不只是给出答案。",
					"例 1：直接运用概念的基础题", "例 2：需要先分析条件的综合题", "解题步骤：审题→分析→求解→检验"),
				slide("常见误区", "展示典型错解，请学生找错并说明原因。",
					"忽略适用条件，生搬硬套", "混淆相近的概念", "只记结论、不会解释"),
				slide("课堂练习", "巡视并收集典型做法，挑选两份投影讲评。",
					"基础题：检查对概念的理解", "提高题：在新情境中运用"+q, "同桌互评，说出思路"),
				slide("小结与作业", "请学生先自己小结，再由老师补充完善。",
					"用一句话概括"+q, "整理本课的关键词和例题", "完成课后练习，下节课交流"),
			},
			objectives: []string{
				"说出" + q + "的核心概念和关键要点。",
				"能在具体问题中正确运用" + q + "，并说明理由。",
				"通过例题和练习，体会分析条件、规范表达的方法。",
			},
			keyPoints:    []string{q + "的核心概念和关键要点。"},
			difficulties: []string{"判断" + q + "的适用条件。", "在新情境中灵活运用" + q + "。"},
			process: [][4]string{
				{"导入", "5 分钟", "用生活中的问题引出" + q, "说出已有的认识"},
				{"新授", "15 分钟", "讲解核心概念和关键要点", "记录关键词，复述概念"},
				{"例题讲解", "10 分钟", "示范两道例题的完整思路", "跟随分析，说出每一步的依据"},
				{"课堂练习", "10 分钟", "巡视指导，收集典型做法", "独立完成练习，同桌互评"},
				{"小结", "5 分钟", "补充完善学生的小结", "用一句话概括本课内容"},
			},
			homework: []string{
				"用自己的话写出" + q + "的核心概念，并举一个例子。",
				"完成 3 道与" + q + "相关的练习题，写出解题步骤。",
				"整理一个本课的易错点，说明错误原因和改正方法。",
			},
		}
	}
	return material{
		topic: t, title: headline(t), subject: subject,
		slides: []slideArg{
			slide("Starter: "+t+" around us", "Open with an everyday example and collect what students already know.",
				"An everyday question that leads into "+t, "What do students already know?", "Today's learning goals"),
			slide("Key idea of "+t, "Write the definition and underline the key words; ask students to restate it.",
				"What "+t+" means, stated precisely", "The key words in the definition", "How it differs from similar ideas"),
			slide("Key points", "Take one point at a time and ask for an example after each.",
				"The main content and conclusions", "When it applies and when it does not", "Common ways to represent it"),
			slide("Worked examples", "Model the whole thinking process, not just the answer.",
				"Example 1: a direct application", "Example 2: a problem where the conditions need checking first", "Steps: read, analyse, solve, check"),
			slide("Common mistakes", "Show typical wrong answers and ask students to find the error.",
				"Applying it without checking the conditions", "Mixing it up with similar ideas", "Memorising without being able to explain"),
			slide("Practice", "Circulate, collect typical answers and discuss two of them.",
				"Core question: check understanding of the key idea", "Stretch question: use "+t+" in a new situation", "Pairs explain their reasoning to each other"),
			slide("Summary and homework", "Let students summarise first, then add what is missing.",
				"Sum up "+t+" in one sentence", "Review the key words and examples", "Complete the homework for next lesson"),
		},
		objectives: []string{
			"State the key idea and main points of " + t + ".",
			"Apply " + t + " correctly to problems and explain why.",
			"Check conditions and explain reasoning clearly.",
		},
		keyPoints:    []string{"The key idea and main points of " + t + "."},
		difficulties: []string{"Deciding when " + t + " applies.", "Using " + t + " in unfamiliar situations."},
		process: [][4]string{
			{"Starter", "5 min", "Introduce " + t + " with an everyday question", "Share what they already know"},
			{"Teaching", "15 min", "Explain the key idea and main points", "Note key words and restate the idea"},
			{"Worked examples", "10 min", "Model two examples step by step", "Follow and justify each step"},
			{"Practice", "10 min", "Circulate and collect typical answers", "Work alone, then compare in pairs"},
			{"Plenary", "5 min", "Complete the students' summary", "Sum up the lesson in one sentence"},
		},
		homework: []string{
			"Explain the key idea of " + t + " in your own words, with one example.",
			"Answer three practice questions on " + t + ", showing your steps.",
			"Note one common mistake from today and how to avoid it.",
		},
	}
}
