rchar: 22649571799
wchar: 5977
syscr: 172992
syscw: 3
read_bytes: 0
write_bytes: 20480
cancelled_write_bytes: 0
