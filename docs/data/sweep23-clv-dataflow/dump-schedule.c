#include <stdio.h>
#include <stdlib.h>
#include "clairvoyant/schedule.h"
int main(int argc,char**argv){ int P=atoi(argv[1]),N=atoi(argv[2]),root=atoi(argv[3]); double a[256]; for(int i=0;i<P;i++)a[i]=atof(argv[4+i]);
 papc_clv_schedule s; papc_clv_fast(a,P,N,root,1,&s);
 for(int p=0;p<P;p++){ printf("p%d:",p); for(size_t i=s.first[p];i<s.first[p+1];i++){papc_clv_event*e=&s.events[i]; printf(" r%d %s%d s%d;",e->round,e->kind?"R":"S",e->peer,e->segment);} printf("\n");} return 0;}
