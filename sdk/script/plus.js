/*! sm.plus.js: sm.js, then what its data-track attribute (space-separated) asks for. outbound: a click on a link to
 another host sends "Outbound Link: Click" {url}. downloads: a link to a file (the extensions below) sends "File Download"
 {url}. 404: a page with <meta name="shipmate:404"> sends "404" {path}. engagement: one "engagement" event per page view
 {scroll_depth: 0-100, engaged_ms: time visible and focused}, sent when the page is first hidden or left (an SPA
 navigation leaves it); time after a return to a hidden tab is not counted. Served as one file with sm.js. */
;(function(w,d){var s=d.currentScript,l=location,h=history,f=((s&&s.getAttribute('data-track'))||'').split(' '),n=function(x){return f.indexOf(x)>=0},u,g,a,m,k
if(!s||!w.sm)return
if(n('404')&&d.querySelector('meta[name="shipmate:404"]'))w.sm('404',{path:l.pathname})
if(n('outbound')||n('downloads'))d.addEventListener('click',function(e){var t=e.target.closest&&e.target.closest('a[href]')
if(!t||t.protocol.indexOf('http'))return
if(n('downloads')&&/\.(pdf|xlsx|docx|txt|rtf|csv|exe|key|pps|ppt|pptx|7z|pkg|rar|gz|zip|avi|mov|mp4|mpeg|wmv|midi|mp3|wav|wma|dmg)$/i.test(t.pathname))w.sm('File Download',{url:t.href})
else if(n('outbound')&&t.host!=l.host)w.sm('Outbound Link: Click',{url:t.href})},!0)
if(!n('engagement'))return
function A(){return d.visibilityState=='visible'&&d.hasFocus()}
function T(){var x=Date.now();if(a)m+=x-a;a=A()?x:0}
function S(){var e=d.documentElement,x=Math.round((w.scrollY+w.innerHeight)/Math.max(e.scrollHeight,1)*100);k=Math.max(k,Math.min(100,x))}
function R(){u=l.href;g=0;m=0;k=0;a=0;S();T()}
function F(){T();if(!g){g=1;w.sm('engagement',{scroll_depth:k,engaged_ms:m},u)}}
function C(){if(l.href!=u){F();R()}}
;['pushState','replaceState'].forEach(function(x){var o=h[x];h[x]=function(){var r=o.apply(this,arguments);C();return r}})
w.addEventListener('popstate',C);w.addEventListener('scroll',S,{passive:!0});w.addEventListener('focus',T);w.addEventListener('blur',T)
d.addEventListener('visibilitychange',function(){d.visibilityState=='hidden'?F():T()});w.addEventListener('pagehide',F);R()})(window,document)
