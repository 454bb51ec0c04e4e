% Nim, as in the logic chapter: two players take turns removing one or more objects from
% one pile; whoever takes the last object wins. Three piles of sizes 3, 4 and 5.

role(white)
role(black)

pile(a)
pile(b)
pile(c)

init(heap(a,3))
init(heap(b,4))
init(heap(c,5))
init(control(white))

succ(0,1)
succ(1,2)
succ(2,3)
succ(3,4)
succ(4,5)

% less(X,Y): X is smaller than Y, the transitive closure of succ.
less(X,Y) :- succ(X,Y)
less(X,Z) :- succ(X,Y) & less(Y,Z)

legal(P,reduce(X,N)) :- true(control(P)) & true(heap(X,M)) & less(N,M)
legal(white,noop) :- true(control(black))
legal(black,noop) :- true(control(white))

next(heap(X,N)) :- does(P,reduce(X,N))
next(heap(X,N)) :- true(heap(X,N)) & does(P,reduce(Y,M)) & distinct(X,Y)
next(control(black)) :- true(control(white))
next(control(white)) :- true(control(black))

empty :- true(heap(a,0)) & true(heap(b,0)) & true(heap(c,0))
terminal :- empty

% The player who took the last object moved last: the one not in control now.
goal(white,100) :- empty & true(control(black))
goal(white,0) :- empty & true(control(white))
goal(black,100) :- empty & true(control(white))
goal(black,0) :- empty & true(control(black))
goal(P,50) :- role(P) & ~empty
