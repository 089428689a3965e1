rchar: 27736738261
wchar: 5976
syscr: 211804
syscw: 3
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
