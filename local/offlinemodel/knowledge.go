package offlinemodel

import "strings"

// topic is one entry of the stand-in's small knowledge base: how a teacher
// names it, its subject, and an explanation in each language, plus a simpler
// one for "再说简单一点".
type topic struct {
	zh, en               string
	aliases              []string // lower case
	subjectZh, subjectEn string
	explainZh, explainEn string
	simpleZh, simpleEn   string
}

func knowledgeBase() []topic {
	return []topic{
		{
			zh: "牛顿第一定律", en: "Newton's first law",
			aliases:   []string{"牛顿第一定律", "惯性定律", "newton's first law", "newton’s first law", "newtons first law", "first law of motion", "law of inertia", "keep moving"},
			subjectZh: "物理", subjectEn: "Physics",
			explainZh: "**牛顿第一定律**（又叫惯性定律）说的是：一切物体在没有受到力的作用时，总保持**静止状态**或**匀速直线运动状态**。\n\n" +
				"可以从三点来理解：\n\n" +
				"1. **力不是维持物体运动的原因**，而是**改变物体运动状态的原因**。\n" +
				"2. 物体保持原有运动状态的性质叫做**惯性**，惯性大小只由**质量**决定，与速度、是否受力都无关。\n" +
				"3. 这条定律无法用实验直接验证（现实中不存在完全不受力的物体），它是在伽利略斜面实验的基础上经过科学推理得出的。\n\n" +
				"生活中的例子：公交车急刹车时乘客会向前倾，就是因为身体由于惯性要保持原来向前的运动状态。",
			explainEn: "**Newton's first law** (the law of inertia) says that an object stays **at rest** or keeps moving **in a straight line at constant speed** unless a net force acts on it.\n\n" +
				"Three points help students get it right:\n\n" +
				"1. A force is **not** needed to keep something moving; a force is what **changes** its motion.\n" +
				"2. The tendency to keep its state of motion is called **inertia**, and it depends only on the object's **mass**.\n" +
				"3. The law cannot be tested directly, because nothing is ever completely free of forces; Galileo's ramp experiments and careful reasoning lead to it.\n\n" +
				"An everyday example: when a bus brakes suddenly, passengers lurch forward because their bodies keep moving.",
			simpleZh: "简单说：**物体不受推、不受拉的时候，原来怎么动，就一直怎么动。**\n\n" +
				"本来停着的，就一直停着；本来沿直线匀速运动的，就一直这样运动下去。这种“想保持原样”的性质叫**惯性**，越重的物体惯性越大。" +
				"坐车时突然刹车，你会往前冲，就是身体还想保持原来向前的运动。",
			simpleEn: "In simple words: **things keep doing what they are already doing unless something pushes or pulls them.**\n\n" +
				"A ball lying still stays still, and a puck sliding on smooth ice keeps sliding in a straight line. " +
				"This \"keep doing the same thing\" habit is called **inertia**, and heavier things have more of it. " +
				"That is why you jolt forward when a car stops suddenly.",
		},
		{
			zh: "光合作用", en: "photosynthesis",
			aliases:   []string{"光合作用", "photosynthesis"},
			subjectZh: "生物", subjectEn: "Biology",
			explainZh: "**光合作用**是绿色植物利用光能，把**二氧化碳**和**水**合成**有机物（主要是葡萄糖）**，并释放**氧气**的过程。\n\n" +
				"- **场所**：叶绿体，其中的**叶绿素**负责吸收光能；\n" +
				"- **条件**：需要光；\n" +
				"- **原料**：二氧化碳（主要通过叶片的气孔进入）和水（主要由根吸收）；\n" +
				"- **产物**：有机物和氧气。\n\n" +
				"可以用文字式概括：二氧化碳 + 水 →（光能、叶绿体）→ 有机物（储存能量）+ 氧气。" +
				"光合作用把光能转化为化学能储存在有机物中，为几乎所有生物提供了食物和氧气。",
			explainEn: "**Photosynthesis** is the process in which green plants use **light energy** to turn **carbon dioxide** and **water** into **glucose**, releasing **oxygen** as a by-product.\n\n" +
				"- **Where**: in the chloroplasts, whose green pigment **chlorophyll** absorbs the light.\n" +
				"- **Raw materials**: carbon dioxide (entering through the stomata) and water (taken up by the roots).\n" +
				"- **Products**: glucose, which stores chemical energy, and oxygen.\n\n" +
				"Word equation: carbon dioxide + water → glucose + oxygen (with light and chlorophyll). " +
				"Photosynthesis is the starting point of almost every food chain and the source of the oxygen we breathe.",
			simpleZh: "简单说，光合作用就是**植物“自己做饭”**。\n\n" +
				"植物用叶子里的绿色物质（叶绿素）接住阳光，把从空气里吸进来的二氧化碳和从根吸上来的水，做成自己需要的养料（糖），" +
				"同时放出我们呼吸需要的氧气。没有光，这顿“饭”就做不成。",
			simpleEn: "Put simply, photosynthesis is **how plants make their own food**.\n\n" +
				"The green stuff in leaves (chlorophyll) catches sunlight. The plant uses that energy to turn carbon dioxide from the air " +
				"and water from the soil into sugar, and it gives off oxygen, which we breathe. No light, no food-making.",
		},
		{
			zh: "现在完成时", en: "the present perfect tense",
			aliases:   []string{"现在完成时", "present perfect"},
			subjectZh: "英语", subjectEn: "English",
			explainZh: "**现在完成时**（present perfect）表示过去发生的动作**对现在造成的影响或结果**，或者从过去**一直持续到现在**的动作或状态。\n\n" +
				"**结构**：have / has + 过去分词，例如 *I have finished my homework.*\n\n" +
				"常见用法：\n\n" +
				"1. 强调结果：*She has lost her key.*（钥匙现在还没找到）\n" +
				"2. 持续到现在：*We have lived here for ten years / since 2015.*\n" +
				"3. 表示经历：*Have you ever been to Beijing?*\n\n" +
				"它常和 already、yet、ever、never、just、for、since 连用；注意它**不能**和 yesterday、last week、in 2010 这类表示明确过去时间的词连用，那种情况要用一般过去时。",
			explainEn: "The **present perfect** (have/has + past participle) links the past with the present.\n\n" +
				"We use it for:\n\n" +
				"1. **Results now**: *She has lost her key* (she still doesn't have it).\n" +
				"2. **Situations continuing up to now**: *We have lived here for ten years / since 2015.*\n" +
				"3. **Life experience**: *Have you ever been to Beijing?*\n\n" +
				"Typical signal words are *already, yet, ever, never, just, for* and *since*. " +
				"It is **not** used with a finished past time such as *yesterday* or *in 2010*; then the simple past is correct: *I saw him yesterday*, not *I have seen him yesterday*.",
			simpleZh: "简单说，现在完成时就是“**以前做了，现在还有关系**”。\n\n" +
				"形式是 have/has + 过去分词。比如 *I have eaten lunch.* 意思是“我吃过午饭了（所以现在不饿）”。" +
				"如果只是说过去某个时间做了什么、和现在没关系，就用一般过去时：*I ate noodles yesterday.*",
			simpleEn: "Simply put, the present perfect means **\"something happened before, and it matters now.\"**\n\n" +
				"You make it with *have/has* + past participle: *I have eaten lunch* (so I'm not hungry now). " +
				"If you only talk about a finished time in the past, use the simple past instead: *I ate noodles yesterday.*",
		},
		{
			zh: "勾股定理", en: "the Pythagorean theorem",
			aliases:   []string{"勾股定理", "毕达哥拉斯定理", "pythagorean theorem", "pythagoras"},
			subjectZh: "数学", subjectEn: "Mathematics",
			explainZh: "**勾股定理**：在直角三角形中，两条直角边的平方和等于斜边的平方，即 **a² + b² = c²**（c 为斜边）。\n\n" +
				"- **典型应用**：已知两边求第三边。例如两条直角边分别是 3 和 4，则斜边 c = √(3² + 4²) = 5。\n" +
				"- **逆定理**：如果三角形三边满足 a² + b² = c²，那么这个三角形是直角三角形，可以用来判断直角。\n" +
				"- **常见勾股数**：3、4、5；5、12、13；6、8、10。\n\n" +
				"易错点：只有在**直角三角形**中才能使用，而且一定要先分清哪条边是斜边（最长的边，也就是直角所对的边）。",
			explainEn: "The **Pythagorean theorem** says that in a right-angled triangle the square of the hypotenuse equals the sum of the squares of the other two sides: **a² + b² = c²**, where c is the hypotenuse.\n\n" +
				"- **Finding a side**: if the legs are 3 and 4, then c = √(3² + 4²) = 5.\n" +
				"- **The converse**: if a triangle's sides satisfy a² + b² = c², the triangle has a right angle.\n" +
				"- **Pythagorean triples** worth remembering: 3-4-5, 5-12-13, 6-8-10.\n\n" +
				"A common mistake is using it in triangles without a right angle, or squaring the wrong side: the hypotenuse is always the longest side, opposite the right angle.",
			simpleZh: "简单说：**直角三角形里，两条短边各自平方再相加，正好等于最长边的平方。**\n\n" +
				"比如两条短边是 3 和 4：3×3 + 4×4 = 9 + 16 = 25，而 5×5 = 25，所以最长边是 5。知道其中两条边，就能算出第三条。",
			simpleEn: "In short: **in a right-angled triangle, square the two short sides, add them, and you get the square of the long side.**\n\n" +
				"With short sides 3 and 4: 9 + 16 = 25, and 5 × 5 = 25, so the long side is 5. Know any two sides and you can work out the third.",
		},
	}
}

// findTopic returns the known topic mentioned first in s.
func findTopic(s string) (topic, bool) { return findTopicAt(s, false) }

// findTopicLast returns the known topic mentioned last in s: in a history
// summary, the latest subject of conversation.
func findTopicLast(s string) (topic, bool) { return findTopicAt(s, true) }

func findTopicAt(s string, last bool) (topic, bool) {
	low := strings.ToLower(s)
	var found topic
	best := -1
	for _, t := range knowledgeBase() {
		for _, a := range t.aliases {
			at := strings.Index(low, a)
			if last {
				at = strings.LastIndex(low, a)
			}
			if at >= 0 && (best < 0 || (last && at > best) || (!last && at < best)) {
				found, best = t, at
			}
		}
	}
	return found, best >= 0
}

func (t topic) explain(l lang, simpler bool) string {
	if simpler {
		return l.pick(t.simpleZh, t.simpleEn)
	}
	return l.pick(t.explainZh, t.explainEn)
}
