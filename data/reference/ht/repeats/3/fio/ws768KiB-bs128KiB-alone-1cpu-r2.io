rchar: 95923710967
wchar: 13666
syscr: 732060
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
