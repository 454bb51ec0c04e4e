% The chessboard of the analysis chapter (Table 14.1): files a-h, ranks 1-8, adjacency of
% files and of ranks, and the moves of a king. The chapter gives kingmove's heads but not
% its bodies; these make kingmove hold for exactly the real king moves on 8x8: 420 of them
% (4 corners x 3 + 24 edge squares x 5 + 36 inner squares x 8), not the 444 the chapter says.
% The domain graph allows 7 x 7 = 49 next_file pairs (7 are facts), 16 x 16 = 256 adjacent
% pairs (28 are derivable) and 16^4 = 65536 kingmove tuples.
% A lone king walking from e1 to h8 makes it a game.

role(white)

next_file(a,b)
next_file(b,c)
next_file(c,d)
next_file(d,e)
next_file(e,f)
next_file(f,g)
next_file(g,h)

next_rank(1,2)
next_rank(2,3)
next_rank(3,4)
next_rank(4,5)
next_rank(5,6)
next_rank(6,7)
next_rank(7,8)

file(a)
file(b)
file(c)
file(d)
file(e)
file(f)
file(g)
file(h)

rank(1)
rank(2)
rank(3)
rank(4)
rank(5)
rank(6)
rank(7)
rank(8)

adjacent(X,Y) :- next_file(X,Y)
adjacent(X,Y) :- next_file(Y,X)
adjacent(X,Y) :- next_rank(X,Y)
adjacent(X,Y) :- next_rank(Y,X)

% Along the file, along the rank, diagonally. A file is adjacent only to files and a rank
% only to ranks, so file(U) and rank(V) type the target square too.
kingmove(U,V,U,Y) :- file(U) & rank(V) & adjacent(V,Y)
kingmove(U,V,X,V) :- file(U) & rank(V) & adjacent(U,X)
kingmove(U,V,X,Y) :- file(U) & rank(V) & adjacent(U,X) & adjacent(V,Y)

init(at(e,1))

legal(white,move(X,Y)) :- true(at(U,V)) & kingmove(U,V,X,Y)
next(at(X,Y)) :- does(white,move(X,Y))

terminal :- true(at(h,8))
goal(white,100) :- true(at(h,8))
goal(white,0) :- ~true(at(h,8))
