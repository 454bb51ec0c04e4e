//! Graph algorithms shared by the checks, the analysis, the ground stage and the reasoners:
//! strongly connected components, and lists of items by key built without a vector per key.

/// Items grouped by key `0..n`, each key's in the order given: a counting sort, in two passes
/// over the pairs (count, then place), with one array for all the lists (the ground stage
/// builds them over millions of rules and literals).
pub struct Lists<T> {
    /// Key `k`'s items are `items[starts[k]..starts[k + 1]]`.
    pub starts: Vec<usize>,
    /// Every item, grouped by key.
    pub items: Vec<T>,
}

impl<T: Copy + Default> Lists<T> {
    /// The lists of the `(key, item)` pairs that `pairs` yields (the same each call), keys
    /// below `n`.
    pub fn new<I: Iterator<Item = (usize, T)>>(n: usize, pairs: impl Fn() -> I) -> Lists<T> {
        let mut starts = vec![0usize; n + 1];
        pairs().for_each(|(k, _)| starts[k + 1] += 1);
        for k in 0..n {
            starts[k + 1] += starts[k];
        }
        let mut fill = starts.clone();
        let mut items = vec![T::default(); starts[n]];
        for (k, item) in pairs() {
            items[fill[k]] = item;
            fill[k] += 1;
        }
        Lists { starts, items }
    }

    /// Key `k`'s items.
    pub fn get(&self, k: usize) -> &[T] {
        &self.items[self.starts[k]..self.starts[k + 1]]
    }
}

/// The strongly connected component of each of `n` nodes (iterative Tarjan), where
/// `successor(v, i)` is the `i`-th successor of `v`, if it has that many. Two nodes share a
/// component exactly when each reaches the other; ids are in Tarjan's completion order, so
/// every component's id is larger than those of the components it reaches.
pub fn components(n: usize, successor: impl Fn(usize, usize) -> Option<usize>) -> Vec<u32> {
    const UNVISITED: u32 = u32::MAX;
    let mut index = vec![UNVISITED; n];
    let mut low = vec![0u32; n];
    let mut on_stack = vec![false; n];
    let mut component = vec![UNVISITED; n];
    let mut stack: Vec<usize> = Vec::new();
    // The simulated call stack: a node and the next of its successors to follow.
    let mut calls: Vec<(usize, usize)> = Vec::new();
    let mut next_index = 0u32;
    let mut next_component = 0u32;
    for root in 0..n {
        if index[root] != UNVISITED {
            continue;
        }
        index[root] = next_index;
        low[root] = next_index;
        next_index += 1;
        stack.push(root);
        on_stack[root] = true;
        calls.push((root, 0));
        while let Some(&(v, i)) = calls.last() {
            if let Some(w) = successor(v, i).filter(|&w| w < n) {
                if let Some(top) = calls.last_mut() {
                    top.1 += 1;
                }
                if index[w] == UNVISITED {
                    index[w] = next_index;
                    low[w] = next_index;
                    next_index += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    calls.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            if successor(v, i).is_some() {
                // A successor out of range: skip it.
                if let Some(top) = calls.last_mut() {
                    top.1 += 1;
                }
                continue;
            }
            calls.pop();
            if let Some(&(parent, _)) = calls.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    component[w] = next_component;
                    if w == v {
                        break;
                    }
                }
                next_component += 1;
            }
        }
    }
    component
}
