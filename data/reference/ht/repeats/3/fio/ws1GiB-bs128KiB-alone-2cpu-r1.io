rchar: 79688215619
wchar: 18970
syscr: 608210
syscw: 5
read_bytes: 24576
write_bytes: 20480
cancelled_write_bytes: 0
