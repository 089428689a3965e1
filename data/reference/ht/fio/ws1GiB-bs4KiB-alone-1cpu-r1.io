rchar: 21978708902
wchar: 13666
syscr: 5366089
syscw: 5
read_bytes: 417792
write_bytes: 20480
cancelled_write_bytes: 0
