% Tic-tac-toe in classic (Prolog-style) infix GDL: the same game as tictactoe.kif.

role(xplayer)
role(oplayer)

index(1)
index(2)
index(3)

base(cell(M,N,C)) :- index(M) & index(N) & mark(C)
mark(x)
mark(o)
mark(b)
base(control(P)) :- role(P)
input(P,mark(M,N)) :- role(P) & index(M) & index(N)
input(P,noop) :- role(P)

init(cell(M,N,b)) :- index(M) & index(N)
init(control(xplayer))

legal(W,mark(X,Y)) :- true(cell(X,Y,b)) & true(control(W))
legal(xplayer,noop) :- true(control(oplayer))
legal(oplayer,noop) :- true(control(xplayer))

next(cell(M,N,x)) :- does(xplayer,mark(M,N)) & true(cell(M,N,b))
next(cell(M,N,o)) :- does(oplayer,mark(M,N)) & true(cell(M,N,b))
next(cell(M,N,W)) :- true(cell(M,N,W)) & distinct(W,b)
next(cell(M,N,b)) :- does(W,mark(J,K)) & true(cell(M,N,b)) & (distinct(M,J) | distinct(N,K))
next(control(xplayer)) :- true(control(oplayer))
next(control(oplayer)) :- true(control(xplayer))

row(M,X) :- true(cell(M,1,X)) & true(cell(M,2,X)) & true(cell(M,3,X))
column(N,X) :- true(cell(1,N,X)) & true(cell(2,N,X)) & true(cell(3,N,X))
diagonal(X) :- true(cell(1,1,X)) & true(cell(2,2,X)) & true(cell(3,3,X))
diagonal(X) :- true(cell(1,3,X)) & true(cell(2,2,X)) & true(cell(3,1,X))
line(X) :- row(M,X)
line(X) :- column(M,X)
line(X) :- diagonal(X)
open :- true(cell(M,N,b))

goal(xplayer,100) :- line(x)
goal(xplayer,50) :- ~line(x) & ~line(o) & ~open
goal(xplayer,0) :- line(o)
goal(xplayer,0) :- ~line(x) & ~line(o) & open
goal(oplayer,100) :- line(o)
goal(oplayer,50) :- ~line(x) & ~line(o) & ~open
goal(oplayer,0) :- line(x)
goal(oplayer,0) :- ~line(x) & ~line(o) & open

terminal :- line(x)
terminal :- line(o)
terminal :- ~open
