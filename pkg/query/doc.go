// Package query finds the nearest neighbours of items in a similarity
// space: a learned model's embedding, a kernel's (or a sum of kernels')
// native space, or the refit model of a run directory's row. It is the
// library behind "mkpoe query" (docs/query.md): a Space names and numbers
// the items, resolves what a user asks for (an index or a name), and
// answers with an Output, the JSON format mkpoe-query/1.
//
// # Conventions
//
// Items are 0-based. A space holds items 0 … Total−1: first the n training
// items (of a model, a kernel or a run's split), then new items. The new
// items of a model or a native space come from kernel rows (t×n, row q is
// new item q against the n training items) and are numbered n … n+t−1 and
// named "new:0" … "new:t−1"; a run's held-out items keep the indices and
// names of its items.json. Distances are Euclidean; rankings use squared
// distances, ties broken by index (eval.Nearest). The query item itself is
// never its own neighbour.
//
// The space's squared distance is
//
//	model, run:  d(x, y) = ‖g(x) − g(y)‖²,  g(x) = (N⁽ᵖ⁾K⁽ᵖ⁾_x)_{p=1}^m
//	native:      d(x, y) = k(x,x) + k(y,y) − 2k(x,y),  k = Σ_p k⁽ᵖ⁾
//
// A model's new items are embedded out of sample by g (the paper's
// concatenated projection, Sec. 4.3, learned by Algorithm 4, MKPOE), so
// they rank against every item. A native space's new items have no known
// kernel value between each other, so they rank against the n training
// items only (Space.Candidates).
//
// [NewEmbedding], [Space.Total] and [Space.Candidates] are for library
// users: mkpoe query builds its spaces from files (FromModel, FromKernels,
// FromRun) and prints what the Output says; ExampleSpace_Query uses all
// three.
//
// Errors from the constructors and from Resolve are about the user's input
// (files, names, indices). Their messages name the options of mkpoe query
// (--item, --kernel-rows, --row, ...), which is how users meet them.
//
// # References
//
// B. McFee and G. Lanckriet. Learning Multi-modal Similarity. JMLR 12 (2011)
// 491–523: Sec. 3.2 and 4.3, Eq. 13 (distances in a learned embedding and
// its out-of-sample extension g(x) = (N⁽ᵖ⁾K⁽ᵖ⁾_x)_p), Algorithm 4 (MKPOE);
// Sec. 4.1, Eq. 9 (the sum kernel, whose native space the "sum native"
// rows of the paper's tables use).
package query
