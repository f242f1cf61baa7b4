package dev.workgraph;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;
import org.springframework.scheduling.annotation.EnableScheduling;

@SpringBootApplication
@ConfigurationPropertiesScan
@EnableScheduling
public class WorkGraphApplication {

	public static void main(String[] args) {
		ExitStatusOnStop.install();
		SpringApplication.run(WorkGraphApplication.class, args);
	}

}
