rchar: 37800733611
wchar: 13662
syscr: 2307387
syscw: 5
read_bytes: 233472
write_bytes: 8192
cancelled_write_bytes: 0
