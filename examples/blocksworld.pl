% Blocksworld, the exercise of the analysis chapter: one robot stacks and unstacks three
% blocks a, b, c; the goal is the tower a on b on c. Its rule
%   next(clear(Y)) :- does(robot,stack(U,V)) & true(clear(Y)) & distinct(V,Y)
% has 27 instances over the cartesian domains of U, V, Y (`gdlground domains`). The exercise
% says 6 of them are reachable, but 12 are: once c is unstacked all six stack(U,V) moves are
% legal, and each keeps both blocks Y other than V clear, Y = U included (tests/domains.rs).

role(robot)

block(a)
block(b)
block(c)

init(clear(b))
init(clear(c))
init(on(c,a))
init(table(a))
init(table(b))
init(step(1))

succ(1,2)
succ(2,3)
succ(3,4)

legal(robot,stack(X,Y)) :- true(clear(X)) & true(table(X)) & true(clear(Y)) & distinct(X,Y)
legal(robot,unstack(X,Y)) :- true(clear(X)) & true(on(X,Y))

next(on(U,V)) :- does(robot,stack(U,V))
next(table(X)) :- does(robot,unstack(X,Y))
next(clear(Y)) :- does(robot,unstack(X,Y))

next(on(X,Y)) :- does(robot,A) & true(on(X,Y)) & ~moved(A,X)
next(table(X)) :- does(robot,A) & true(table(X)) & ~moved(A,X)
next(clear(Y)) :- does(robot,stack(U,V)) & true(clear(Y)) & distinct(V,Y)
next(clear(X)) :- does(robot,unstack(U,V)) & true(clear(X))

moved(stack(X,Y),X) :- block(X) & block(Y)
moved(unstack(X,Y),X) :- block(X) & block(Y)

next(step(Y)) :- true(step(X)) & succ(X,Y)

tower :- true(on(a,b)) & true(on(b,c))

goal(robot,100) :- tower
goal(robot,0) :- ~tower
terminal :- tower
terminal :- true(step(4))
