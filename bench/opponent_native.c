/* The strength bench's independent opponent (bench/opponent_mcts.py's search) in C, so that the
 * issue's 100,000 simulations a move cost well under a second instead of 5-15 s in Python.
 *
 * The same algorithm as opponent_mcts.py, line for line: UCT (C = 2, rewards in [-1, 1]) with an
 * MCTS-Solver that proves wins, losses and draws, children made in a random order the second
 * time a node is reached, uniformly random rollouts. Its own rules again (m,n,k and ultimate),
 * nothing shared with core. Built by bench/opponent_native.py with the machine's C compiler.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { ONGOING = 0, DRAW = 3, UNPROVEN = 2, MAX_CELLS = 81 };

typedef struct {
    int ultimate, size, k;
    int8_t cells[MAX_CELLS];
    int8_t small[9];  /* ultimate: 0 open, 1 or 2 won, 3 full */
    int send;         /* ultimate: the block the next move goes to, -1 any open block */
    int free;         /* m,n,k: empty cells */
    int to_move, result;
} Game;

typedef struct {
    double total;   /* rollout rewards for `player` */
    int32_t visits;
    int32_t first;  /* first child's index, -1 until the children are made */
    uint8_t count;  /* number of children */
    uint8_t move;
    int8_t player;  /* who made `move` */
    int8_t proven;  /* +1 won, 0 drawn, -1 lost for `player`; UNPROVEN */
} Node;

typedef struct {
    Node *nodes;
    int32_t used, cap;
} Tree;

static uint64_t rng_state;

static uint64_t next_random(void) { /* splitmix64 */
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static int below(int n) { return (int)((next_random() >> 11) * (1.0 / 9007199254740992.0) * n); }

static void shuffle(int *items, int n) {
    for (int i = n - 1; i > 0; i--) {
        int j = below(i + 1), t = items[i];
        items[i] = items[j];
        items[j] = t;
    }
}

/* --- rules -------------------------------------------------------------------------------- */

static const int TRIPLES[8][3] = {{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {0, 3, 6},
                                  {1, 4, 7}, {2, 5, 8}, {0, 4, 8}, {2, 4, 6}};

static int three(const int8_t *v, int p) {
    for (int i = 0; i < 8; i++)
        if (v[TRIPLES[i][0]] == p && v[TRIPLES[i][1]] == p && v[TRIPLES[i][2]] == p) return 1;
    return 0;
}

static int mnk_wins(const Game *g, int cell, int p) {
    static const int DIRS[4][2] = {{0, 1}, {1, 0}, {1, 1}, {1, -1}};
    int r = cell / g->size, c = cell % g->size;
    for (int d = 0; d < 4; d++) {
        int run = 1;
        for (int sign = 1; sign >= -1; sign -= 2) {
            int rr = r + sign * DIRS[d][0], cc = c + sign * DIRS[d][1];
            while (rr >= 0 && rr < g->size && cc >= 0 && cc < g->size &&
                   g->cells[rr * g->size + cc] == p) {
                run++;
                rr += sign * DIRS[d][0];
                cc += sign * DIRS[d][1];
            }
        }
        if (run >= g->k) return 1;
    }
    return 0;
}

static int moves_of(const Game *g, int *out) {
    int n = 0;
    if (g->result) return 0;
    if (!g->ultimate) {
        for (int i = 0; i < g->size * g->size; i++)
            if (!g->cells[i]) out[n++] = i;
        return n;
    }
    for (int b = 0; b < 9; b++) {
        if (g->send >= 0 ? b != g->send : g->small[b] != 0) continue;
        for (int c = 0; c < 9; c++)
            if (!g->cells[b * 9 + c]) out[n++] = b * 9 + c;
    }
    return n;
}

static void play(Game *g, int move) {
    int p = g->to_move;
    g->cells[move] = (int8_t)p;
    g->to_move = 3 - p;
    if (!g->ultimate) {
        g->free--;
        if (mnk_wins(g, move, p))
            g->result = p;
        else if (!g->free)
            g->result = DRAW;
        return;
    }
    int block = move / 9, cell = move % 9;
    const int8_t *part = g->cells + block * 9;
    if (three(part, p)) {
        g->small[block] = (int8_t)p;
        if (three(g->small, p)) g->result = p;
    } else if (!memchr(part, 0, 9)) {
        g->small[block] = DRAW;
    }
    if (!g->result && !memchr(g->small, 0, 9)) g->result = DRAW;
    g->send = g->small[cell] ? -1 : cell;
}

static int rollout(Game *g) {
    int moves[MAX_CELLS];
    if (g->result) return g->result;
    if (!g->ultimate) { /* a random order of the free cells, played to the first line */
        int n = moves_of(g, moves), p = g->to_move;
        shuffle(moves, n);
        for (int i = 0; i < n; i++) {
            g->cells[moves[i]] = (int8_t)p;
            if (mnk_wins(g, moves[i], p)) return g->result = p;
            p = 3 - p;
        }
        return g->result = DRAW;
    }
    while (!g->result) {
        int n = moves_of(g, moves);
        play(g, moves[below(n)]);
    }
    return g->result;
}

/* --- the search --------------------------------------------------------------------------- */

static int32_t new_node(Tree *t, int move, int player) {
    if (t->used == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 1 << 16;
        t->nodes = realloc(t->nodes, (size_t)t->cap * sizeof(Node));
        if (!t->nodes) abort();
    }
    Node *n = &t->nodes[t->used];
    n->total = 0;
    n->visits = 0;
    n->first = -1;
    n->count = 0;
    n->move = (uint8_t)move;
    n->player = (int8_t)player;
    n->proven = UNPROVEN;
    return t->used++;
}

static double value(const Node *c) { return c->proven != UNPROVEN ? c->proven : c->total / c->visits; }

static int32_t select_child(const Tree *t, int32_t node) {
    const Node *parent = &t->nodes[node];
    int32_t first = parent->first, end = first + parent->count, best = first;
    for (int32_t c = first; c < end; c++)
        if (t->nodes[c].proven == 1) return c;
    int any_alive = 0;
    for (int32_t c = first; c < end; c++)
        if (t->nodes[c].proven != -1) any_alive = 1;
    double log_n = log(parent->visits > 1 ? parent->visits : 1), best_score = -INFINITY;
    for (int32_t c = first; c < end; c++) {
        const Node *child = &t->nodes[c];
        if (any_alive && child->proven == -1) continue;
        if (!child->visits) return c;
        double score = value(child) + 2.0 * sqrt(log_n / child->visits);
        if (score > best_score) {
            best = c;
            best_score = score;
        }
    }
    return best;
}

static void prove(Tree *t, int32_t node) {
    Node *n = &t->nodes[node];
    if (n->first < 0 || !n->count) return;
    int best = -2;
    for (int32_t c = n->first; c < n->first + n->count; c++) {
        int proven = t->nodes[c].proven;
        if (proven == 1) {
            n->proven = -1;
            return;
        }
        if (proven == UNPROVEN) best = 99;
        else if (best != 99 && proven > best) best = proven;
    }
    if (best != 99) n->proven = (int8_t)-best;
}

static double reward(int result, int player) { return result == DRAW ? 0.0 : result == player ? 1.0 : -1.0; }

static void simulate(Tree *t, const Game *start) {
    Game g = *start;
    int32_t path[MAX_CELLS + 2];
    int depth = 0, moves[MAX_CELLS];
    int32_t node = 0;
    path[depth++] = 0;
    while (t->nodes[node].proven == UNPROVEN && !g.result) {
        if (t->nodes[node].first < 0) {
            if (t->nodes[node].visits == 0 && node != 0) break;
            int n = moves_of(&g, moves);
            shuffle(moves, n);
            int32_t first = t->used;
            for (int i = 0; i < n; i++) new_node(t, moves[i], g.to_move);
            t->nodes[node].first = first; /* after new_node: the array may have moved */
            t->nodes[node].count = (uint8_t)n;
        }
        node = select_child(t, node);
        play(&g, t->nodes[node].move);
        path[depth++] = node;
    }
    Node *last = &t->nodes[node];
    if (g.result && last->proven == UNPROVEN) last->proven = (int8_t)reward(g.result, last->player);
    int result;
    if (last->proven != UNPROVEN)
        result = last->proven == 0 ? DRAW : last->proven > 0 ? last->player : 3 - last->player;
    else
        result = rollout(&g);
    for (int i = depth - 1; i >= 0; i--) {
        Node *here = &t->nodes[path[i]];
        here->visits++;
        here->total += reward(result, here->player);
        if (i < depth - 1 && here->proven == UNPROVEN) prove(t, path[i]);
    }
}

/* The move after `simulations` simulations (fewer once the root is proven) from the position
 * given by `cells` (0 empty, 1 X, 2 O), `send` (ultimate) and `to_move`; -1 if the game is over.
 * `visits_out`, when not NULL, receives the simulations run, and `value_out` the chosen move's
 * value for the player to move, in [-1, 1] (its proven value if proven). */
int opponent_move(int ultimate, int size, int k, const int8_t *cells, int send, int to_move,
                  long simulations, uint64_t seed, long *visits_out, double *value_out) {
    Game g;
    memset(&g, 0, sizeof g);
    g.ultimate = ultimate;
    g.size = ultimate ? 9 : size;
    g.k = ultimate ? 3 : k;
    g.to_move = to_move;
    g.send = ultimate ? send : -1;
    int cells_n = g.size * g.size;
    memcpy(g.cells, cells, (size_t)cells_n);
    for (int i = 0; i < cells_n; i++)
        if (!cells[i]) g.free++;
    if (ultimate) {
        for (int b = 0; b < 9; b++) {
            const int8_t *part = g.cells + b * 9;
            g.small[b] = three(part, 1) ? 1 : three(part, 2) ? 2 : memchr(part, 0, 9) ? 0 : DRAW;
        }
        if (three(g.small, 1)) g.result = 1;
        else if (three(g.small, 2)) g.result = 2;
        else if (!memchr(g.small, 0, 9)) g.result = DRAW;
    }
    int moves[MAX_CELLS];
    int n = moves_of(&g, moves);
    if (!n) return -1;
    if (value_out) *value_out = 0.0;
    if (n == 1) return moves[0];
    rng_state = seed;
    Tree t = {0};
    new_node(&t, -1 & 0xFF, 3 - to_move);
    long done = 0;
    for (; done < simulations && t.nodes[0].proven == UNPROVEN; done++) simulate(&t, &g);
    if (visits_out) *visits_out = done;
    const Node *root = &t.nodes[0];
    int32_t best = -1;
    for (int32_t c = root->first; c < root->first + root->count; c++)
        if (t.nodes[c].proven == 1) {
            best = c;
            break;
        }
    if (best < 0) {
        int any_alive = 0;
        for (int32_t c = root->first; c < root->first + root->count; c++)
            if (t.nodes[c].proven != -1) any_alive = 1;
        double best_visits = -1, best_value = -3;
        for (int32_t c = root->first; c < root->first + root->count; c++) {
            const Node *child = &t.nodes[c];
            if (any_alive && child->proven == -1) continue;
            double v = child->visits ? value(child) : -2.0;
            if (child->visits > best_visits || (child->visits == best_visits && v > best_value)) {
                best = c;
                best_visits = child->visits;
                best_value = v;
            }
        }
    }
    int move = t.nodes[best].move;
    const Node *chosen = &t.nodes[best];
    if (value_out) *value_out = chosen->visits || chosen->proven != UNPROVEN ? value(chosen) : 0.0;
    free(t.nodes);
    return move;
}
