rchar: 99659262908
wchar: 13666
syscr: 760559
syscw: 5
read_bytes: 0
write_bytes: 20480
cancelled_write_bytes: 0
