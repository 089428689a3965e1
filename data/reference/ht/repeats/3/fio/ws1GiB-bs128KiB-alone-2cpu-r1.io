rchar: 87593036834
wchar: 18970
syscr: 668503
syscw: 5
read_bytes: 77824
write_bytes: 24576
cancelled_write_bytes: 0
