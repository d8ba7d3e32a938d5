/*! Shipmate analytics: no cookies, no storage. <script defer data-project="pk_..." data-api="https://api.example" src=".../sdk/sm.js">
 Each event is one fetch(keepalive) with an X-Project-Key header, so a CORS preflight; the API answers it with
 Access-Control-Max-Age: 86400, so a browser preflights about once a day (Chromium caps it at 2 h), not per page view.
 Skips Do Not Track and localhost (unless data-allow-localhost), saying so once in console.info. Hand-written compact; no build step. */
(function(w,d){var s=d.currentScript||d.querySelector('script[data-project]'),n=navigator,l=location,h=history,o=w.sm,q=o&&o.q||[],u,r,i,k,a,t
if(!s||o&&o.v)return
k=s.getAttribute('data-project');a=(s.getAttribute('data-api')||new URL(s.src).origin).replace(/\/+$/,'')
function e(m,p,x){var b={name:m,url:x||l.href,referrer:r||void 0,screen_width:w.innerWidth||screen.width,properties:p},g=new URLSearchParams(l.search)
;['source','medium','campaign'].forEach(function(x){b['utm_'+x]=g.get('utm_'+x)||void 0})
fetch(a+'/v1/analytics/events',{method:'POST',keepalive:!0,headers:{'Content-Type':'application/json','X-Project-Key':k},body:JSON.stringify(b)}).catch(function(){})}
function v(){if(l.href!=u){r=u||d.referrer;u=l.href;e('page_view')}}
i=!s.hasAttribute('data-allow-localhost')&&/^(localhost|127\.0\.0\.1|\[::1\])$/.test(l.hostname);t=n.doNotTrack=='1'||w.doNotTrack=='1'||n.msDoNotTrack=='1'
if(i||t)console.info('Shipmate: not counting page views '+(i?'on '+l.hostname+'; add data-allow-localhost to the script tag':'while Do Not Track is on; turn it off in this browser')+' to count them')
t=t||i||!k
w.sm=function(m,p,x){t||e(m,p,x)};w.sm.v=1;w.sm.q={push:function(x){w.sm(x[0],x[1])}}
if(t)return
;['pushState','replaceState'].forEach(function(m){var f=h[m];h[m]=function(){var x=f.apply(this,arguments);v();return x}})
w.addEventListener('popstate',v);v()
for(i=0;i<q.length;i++)w.sm(q[i][0],q[i][1])})(window,document)
